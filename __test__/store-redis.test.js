'use strict'
// needs: redis-server, cargo
// The Redis store below the Ledger, against a real redis-server (Debian's
// `redis-server`, installed by .ci/run when absent) started here on a free
// port of 127.0.0.1 without persistence: two processes on one server, namespaces
// and prefixes, TTL expiry, a server stopped mid-run and restarted.

const { execFile } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const hooks = require('./support/hooks.js')
const { Ledger, recall } = require('..')

const CHILD = path.join(__dirname, 'support', 'redis-child.js')
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'symfonic-redis-'))
let server = null
let port = 0
let url = ''

const { until } = require('./support/wait.js')
const { startRedis, freePort } = require('./support/redis-server.js')

async function startServer() {
  server = await startRedis({ port, dir })
}

async function stopServer() {
  if (!server) return
  const s = server
  server = null
  await s.stop()
}

beforeAll(async () => {
  port = await freePort()
  url = `redis://127.0.0.1:${port}/0`
  await startServer()
}, 15000)

afterAll(async () => {
  await stopServer()
  fs.rmSync(dir, { recursive: true, force: true })
})

function child(args) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [CHILD, ...args], { encoding: 'utf8' }, (err, stdout) => (err ? reject(new Error(`${err.message}\n${stdout}`)) : resolve(JSON.parse(stdout))))
  })
}

let fileN = 0
function writeJson(v) {
  const f = path.join(dir, `items-${fileN++}.json`)
  fs.writeFileSync(f, JSON.stringify(v))
  return f
}

const catalog = JSON.stringify({
  meta: { source: 'test' },
  rows: Array.from({ length: 2000 }, (_, i) => ({ asin: `B0${i}`, price: i / 4, title: `widget ${i}` })),
})
const log = Array.from({ length: 3000 }, (_, i) => `2026-01-01 INFO worker-${i % 8} request ${i}`).join('\n') + '\nERROR code=E1234 boom'
const lossless = 'a\uD800b \uDFFF c😀'.repeat(50)

describe('new Ledger({ store: "redis://…" })', () => {
  test('URLs are checked without connecting', () => {
    expect(() => new Ledger({ store: 'redis://' })).toThrow(TypeError)
    expect(() => new Ledger({ store: 'redis://h/?prefix=a{b}' })).toThrow(/may not contain/)
    expect(() => new Ledger({ store: 'redis:/h' })).toThrow(/store must be 'sqlite:<path>'/)
    // Nothing listens on port 1, and the constructor does no network I/O.
    const l = new Ledger({ store: 'redis://:secret@127.0.0.1:1/0' })
    expect(l.stats()).toMatchObject({ storeErrors: 0 })
    expect(() => new Ledger({ store: 'rediss://127.0.0.1:1/0' })).not.toThrow()
  })

  test('a server that is not there rejects record with ERR_SYMFONIC_STORE, password hidden', async () => {
    const l = new Ledger({ store: 'redis://:secret@127.0.0.1:1/0' })
    const e = await l.record({ toolCallId: 'c', toolName: 't', content: 'x' }).catch((err) => err)
    expect(e.code).toBe('ERR_SYMFONIC_STORE')
    // The store opens in the background; its failure is each call's.
    expect(e.message).toMatch(/^ERR_SYMFONIC_STORE: store open failed: redis:\/\/:\*\*\*@127\.0\.0\.1:1\/0: .*not recorded/)
    // Refused: nothing listens at that port.
    expect(e.message).toMatch(/: Connection refused .*\(is Redis running at this address\?\); /)
    expect(e.message).not.toMatch(/secret/)
  })
})

describe('replicas: several processes on one Redis', () => {
  test('A records, B recalls by id (json_path, query, full) with identical stubs and handles', async () => {
    const reads = {
      catalog: [{ jsonPath: 'rows[-1].title' }, { jsonPath: '$.rows[0:2]' }, { query: 'B01999' }, { format: 'full' }, {}],
      log: [{ query: 'code=E1234' }, { offset: 10, maxChars: 30 }, { format: 'full', maxOutputChars: 500 }],
      lossless: [{ format: 'full' }, { query: '\uD800b' }, { offset: 1, maxChars: 3 }],
    }
    const items = [
      { name: 'catalog', content: catalog, namespace: 'thread-1', reads: reads.catalog },
      { name: 'log', content: log, namespace: '', reads: reads.log },
      { name: 'lossless', content: lossless, namespace: 'thread-2', reads: reads.lossless },
    ]
    const a = await child(['record', url, writeJson(items)])
    const recorded = a.answers.map((x, i) => ({ memId: x.memId, namespace: x.namespace, reads: items[i].reads }))
    const b = await child(['read', url, writeJson(recorded)])
    for (const [i, got] of b.answers.entries()) {
      expect(got.handle).toEqual(a.answers[i].handle)
      expect(got.stub).toBe(a.answers[i].handle.stub)
      expect(got.reads).toEqual(a.answers[i].reads)
    }
    expect(b.answers[0].reads[0]).toBe('"widget 1999"')
    expect(b.answers[2].reads[0]).toBe(lossless)
    expect(b.stats).toMatchObject({ storeHits: 3, storeMisses: 0, storeErrors: 0 })
    // And this process, a third replica: the same id for the same result.
    const c = new Ledger({ store: url, previewChars: 120 })
    const h = await c.record({ toolCallId: 'call-log', toolName: 'log', toolArgs: { page: 1 }, content: log })
    expect(h).toEqual(a.answers[1].handle)
  })

  test('a different result under an id another replica holds is refused', async () => {
    const { Ledger } = hooks.load()
    const a = new Ledger({ store: url })
    const b = new Ledger({ store: url })
    a.__forceMemIdForTest('trm_cccccccccccc')
    b.__forceMemIdForTest('trm_cccccccccccc')
    await a.record({ toolCallId: 'c', toolName: 't', content: 'first' })
    await expect(b.record({ toolCallId: 'c', toolName: 't', content: 'second' })).rejects.toMatchObject({ code: 'ERR_SYMFONIC_MEM_ID_COLLISION' })
    await expect(b.record({ toolCallId: 'c', toolName: 't', content: 'first' })).resolves.toMatchObject({ memId: 'trm_cccccccccccc' })
  })

  test('namespaces and prefixes isolate; delete and clear reach the store', async () => {
    const a = new Ledger({ store: url })
    const h1 = await a.record({ toolCallId: '1', toolName: 't', content: 'one', namespace: 'iso-1' })
    const h2 = await a.record({ toolCallId: '2', toolName: 't', content: 'two', namespace: 'iso-1' })
    await a.record({ toolCallId: '1', toolName: 't', content: 'one', namespace: 'iso-2' })
    const b = new Ledger({ store: url })
    expect(await recall(b, h1.memId, { namespace: 'iso-3', format: 'full' })).toBe(`[tool_memory not found: ${h1.memId} in namespace 'iso-3']`)
    expect(await recall(b, h1.memId, { namespace: 'iso-1', format: 'full' })).toBe('one')
    const other = new Ledger({ store: `${url}?prefix=other:` })
    expect(await other.handle(h1.memId, { namespace: 'iso-1' })).toBeNull()
    expect(other.stats()).toMatchObject({ storeMisses: 1 })
    expect(await b.delete(h2.memId, { namespace: 'iso-1' })).toBe(true)
    expect(await new Ledger({ store: url }).handle(h2.memId, { namespace: 'iso-1' })).toBeNull()
    expect(await b.clear({ namespace: 'iso-1' })).toBe(1)
    const c = new Ledger({ store: url })
    expect(await c.handle(h1.memId, { namespace: 'iso-1' })).toBeNull()
    expect(await c.handle(h1.memId, { namespace: 'iso-2' })).not.toBeNull()
  })

  test('ttlSeconds expires entries in Redis', async () => {
    const a = new Ledger({ store: url, ttlSeconds: 0.05 })
    const short = await a.record({ toolCallId: 's', toolName: 't', content: 'short lived', namespace: 'ttl' })
    const long = await a.record({ toolCallId: 'l', toolName: 't', content: 'forever', namespace: 'ttl', ttlSeconds: Infinity })
    const b = new Ledger({ store: url })
    await until(async () => (await recall(new Ledger({ store: url }), short.memId, { namespace: 'ttl', format: 'full' })) === `[tool_memory not found: ${short.memId} has expired (its time to live passed); it can no longer be recalled]`, 2000)
    expect(await recall(b, long.memId, { namespace: 'ttl', format: 'full' })).toBe('forever')
  })
})

describe('failures', () => {
  test('Redis stopped mid-run: record rejects, recall answers an error, no crash; a restart reconnects', async () => {
    const l = new Ledger({ store: url, maxBytes: 1 })
    const h = await l.record({ toolCallId: '1', toolName: 't', content: 'one', namespace: 'f' })
    await l.record({ toolCallId: '2', toolName: 't', content: 'two', namespace: 'f' }) // evicts the first from memory
    await stopServer()
    await expect(l.record({ toolCallId: '3', toolName: 't', content: 'three', namespace: 'f' })).rejects.toMatchObject({
      code: 'ERR_SYMFONIC_STORE',
      // A connection found dropped may have carried the write before it dropped: unknown, not "not recorded".
      message: expect.stringMatching(/^ERR_SYMFONIC_STORE: store put failed: redis:\/\/127\.0\.0\.1:\d+\/0: .*(not recorded|the outcome is unknown)/),
    })
    // The model's answer names no server; the app's fetch does.
    expect(await recall(l, h.memId, { namespace: 'f' })).toMatch(new RegExp(`^\\[tool_memory error: the store (could not be read|did not answer in time) for ${h.memId}; try again later\\]$`))
    expect(await l.fetch(h.memId, { namespace: 'f' })).toMatch(new RegExp(`^\\[tool_memory error: store read failed for ${h.memId}: store get failed: redis://`))
    await expect(l.handle(h.memId, { namespace: 'f' })).rejects.toMatchObject({ code: 'ERR_SYMFONIC_STORE' })
    expect(l.stats().storeErrors).toBe(4)
    await startServer()
    // The client reconnects (the new server is empty: no persistence).
    await until(async () => {
      try {
        await l.record({ toolCallId: '4', toolName: 't', content: 'four', namespace: 'f' })
        return true
      } catch {
        return false
      }
    }, 5000)
    const again = await l.record({ toolCallId: '1', toolName: 't', content: 'one', namespace: 'f' })
    expect(await recall(new Ledger({ store: url }), again.memId, { namespace: 'f', format: 'full' })).toBe('one')
  }, 15000)
})
