'use strict'
// needs: redis-server, sqlite3
// Stores that fail the way servers and disks do, against real processes
// started (and always stopped) here: a Redis that hangs (SIGSTOP), a Redis
// killed and restarted with AOF `always`, a SQLite file whose write lock
// another process holds. Every call answers within its bound (`timeoutMs`),
// the JS thread and the libuv pool stay free (an unrelated fs.readFile is
// not delayed), outcomes are what they say, and nothing acknowledged is lost.

const { holdWriteLock } = require('./support/sqlite-lock.js')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { performance } = require('node:perf_hooks')
const { ToolMessage, AIMessage } = require('@langchain/core/messages')
const { Ledger, recall } = require('..')
const { compactToolMessages } = require('../langchain')
const { startRedis } = require('./support/redis-server.js')

const BOUND = 1000 // timeoutMs of the ledgers below
const SLACK = 500 // scheduling noise allowed past the bound on a shared CI machine

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'symfonic-faults-'))
const small = path.join(dir, 'small.txt')
fs.writeFileSync(small, 'an unrelated file the app reads\n'.repeat(100))
const servers = []
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()))
  fs.rmSync(dir, { recursive: true, force: true })
})

async function redis(args) {
  const s = await startRedis({ args })
  servers.push(s)
  return s
}

// The longest gap between 5 ms ticks of the event loop while it runs.
function loopWatch() {
  let last = performance.now()
  let worst = 0
  const t = setInterval(() => {
    const now = performance.now()
    worst = Math.max(worst, now - last - 5)
    last = now
  }, 5)
  return () => {
    clearInterval(t)
    return worst
  }
}

// Each promise's settle time in ms after `t0`, and how it settled.
function timed(t0, p) {
  return p.then(
    (value) => ({ ms: performance.now() - t0, value }),
    (error) => ({ ms: performance.now() - t0, error }),
  )
}

// A libuv pool or event loop held by the store would answer only at BOUND;
// half of it tells the two apart even on a loaded 2-core machine.
const FREE_MS = BOUND / 2

async function readFileMs() {
  const t = performance.now()
  await fs.promises.readFile(small)
  return performance.now() - t
}

const payload = (i) => JSON.stringify({ i, rows: Array.from({ length: 40 }, (_, k) => ({ k, name: `row ${k} of ${i}` })) })

describe('Redis hung (SIGSTOP)', () => {
  test('every call answers within its bound, the event loop and the libuv pool stay free, a timed-out record says its outcome is unknown', async () => {
    const server = await redis()
    const writer = await Ledger.open({ store: server.url, timeoutMs: BOUND })
    const handles = []
    for (let i = 0; i < 12; i++) handles.push(await writer.record({ toolCallId: `w${i}`, toolName: 't', content: payload(i), namespace: 'hung' }))
    // maxBytes 1: every read misses memory and goes to the server.
    const reader = await Ledger.open({ store: server.url, timeoutMs: BOUND, maxBytes: 1 })
    const messages = [new AIMessage({ content: '', tool_calls: [{ id: 'big', name: 'dump', args: {} }] }), new ToolMessage({ content: 'x'.repeat(60000), tool_call_id: 'big', name: 'dump' })]

    server.pause()
    try {
      const watch = loopWatch()
      const t0 = performance.now()
      const calls = [
        ...handles.map((h) => timed(t0, reader.fetch(h.memId, { namespace: 'hung', jsonPath: 'i' }))),
        ...handles.map((h, i) => timed(t0, reader.record({ toolCallId: `r${i}`, toolName: 't', content: payload(100 + i), namespace: 'hung' }))),
        timed(t0, reader.handle(handles[0].memId, { namespace: 'hung' })),
        timed(t0, reader.stub(handles[1].memId, { namespace: 'hung' })),
        timed(t0, reader.has(handles[2].memId, { namespace: 'hung' })),
        timed(t0, reader.delete(handles[3].memId, { namespace: 'hung' })),
        timed(t0, recall(reader, handles[4].memId, { namespace: 'hung' })),
        // The middleware's path: compaction records (and stubs) through the ledger.
        timed(t0, compactToolMessages(messages, reader, { namespace: 'hung' })),
      ]
      // Asked while every call above waits on the hung server.
      const readMs = await readFileMs()
      const done = await Promise.all(calls)
      const worstLag = watch()
      expect(readMs).toBeLessThan(FREE_MS)
      expect(worstLag).toBeLessThan(FREE_MS)
      for (const d of done) expect(d.ms).toBeLessThan(BOUND + SLACK)
      const [fetches, records, rest] = [done.slice(0, 12), done.slice(12, 24), done.slice(24)]
      for (const f of fetches) {
        expect(f.value).toMatch(new RegExp(`^\\[tool_memory error: store read failed for trm_[0-9a-f]{12}: store get failed: redis://127\\.0\\.0\\.1:${server.port}/0: no answer within ${BOUND} ms\\]$`))
        expect(f.ms).toBeGreaterThan(BOUND - 50) // it did wait for the server, up to its bound
      }
      for (const r of records) {
        expect(r.error).toMatchObject({ code: 'ERR_SYMFONIC_STORE_TIMEOUT' })
        expect(r.error.message).toMatch(/no answer within 1000 ms; the outcome is unknown: the result may have been stored \(recording it again is safe/)
      }
      for (const r of rest.slice(0, 4)) expect(r.error).toMatchObject({ code: 'ERR_SYMFONIC_STORE_TIMEOUT' })
      // The model's recall says what happened, never the server's address (fetch, above, has it for the app).
      expect(rest[4].value).toBe(`[tool_memory error: the store did not answer in time for ${handles[4].memId}; try again later]`)
      // Compaction answered (it never fails the model call), within the bound too.
      expect(rest[5].error).toBeUndefined()
      expect(rest[5].value).toHaveLength(2)
    } finally {
      server.resume()
    }
    // The server, resumed, runs what was queued: the "unknown" records may
    // well be stored. Recording them again is safe and gives the same ids.
    for (let i = 0; i < 12; i++) {
      const again = await reader.record({ toolCallId: `r${i}`, toolName: 't', content: payload(100 + i), namespace: 'hung' })
      expect(await new Ledger({ store: server.url }).fetch(again.memId, { namespace: 'hung', jsonPath: 'i' })).toBe(String(100 + i))
    }
    expect(await reader.fetch(handles[5].memId, { namespace: 'hung', jsonPath: 'i' })).toBe('5')
    await Promise.all([writer.close(), reader.close()])
  }, 20000)

  test('a ledger made while the server hangs: the constructor returns at once, Ledger.open rejects at its bound', async () => {
    const server = await redis()
    server.pause()
    try {
      const t0 = performance.now()
      const l = new Ledger({ store: server.url, timeoutMs: BOUND })
      expect(performance.now() - t0).toBeLessThan(50)
      const e = await Ledger.open({ store: server.url, timeoutMs: BOUND }).catch((err) => err)
      expect(performance.now() - t0).toBeLessThan(BOUND + SLACK)
      expect(e).toMatchObject({ code: 'ERR_SYMFONIC_STORE_TIMEOUT' })
      expect(e.message).toMatch(/^ERR_SYMFONIC_STORE_TIMEOUT: store open failed: /)
      // Its own open failed meanwhile: this call tries again, within its own bound.
      const r = await timed(performance.now(), l.record({ toolCallId: 'c', toolName: 't', content: 'x' }))
      expect(r.error).toMatchObject({ code: 'ERR_SYMFONIC_STORE_TIMEOUT' })
      expect(r.ms).toBeLessThan(BOUND + SLACK)
      await l.close()
    } finally {
      server.resume()
    }
  }, 15000)

  test('Ledger.open waits its whole bound, the default one (5000 ms) and one past the client\'s two connection attempts of 2 s, then says it timed out', async () => {
    const server = await redis()
    server.pause()
    try {
      const t0 = performance.now()
      const [byDefault, longer] = await Promise.all([timed(t0, Ledger.open({ store: server.url })), timed(t0, Ledger.open({ store: server.url, timeoutMs: 6000 }))])
      for (const [r, bound] of [
        [byDefault, 5000],
        [longer, 6000],
      ]) {
        expect(r.error).toMatchObject({ code: 'ERR_SYMFONIC_STORE_TIMEOUT' })
        expect(r.error.message).toMatch(new RegExp(`^ERR_SYMFONIC_STORE_TIMEOUT: store open failed: .*: no answer within ${bound} ms$`))
        expect(r.ms).toBeGreaterThan(bound - 20)
        expect(r.ms).toBeLessThan(bound + SLACK)
      }
    } finally {
      server.resume()
    }
  }, 15000)
})

describe('Redis killed and restarted (AOF, appendfsync always)', () => {
  test('nothing acknowledged is lost', async () => {
    const server = await redis(['--appendonly', 'yes', '--appendfsync', 'always'])
    const l = await Ledger.open({ store: server.url, timeoutMs: 2000 })
    const acked = []
    let stop = false
    let failed = 0
    const worker = async (w) => {
      for (let i = 0; !stop; i++) {
        const content = `${w}/${i} `.repeat(50 + ((i * 37) % 400))
        try {
          const h = await l.record({ toolCallId: `k${w}-${i}`, toolName: 't', content, namespace: `kill-${w}` })
          acked.push({ h, content })
        } catch {
          failed++
          await new Promise((r) => setTimeout(r, 5))
        }
      }
    }
    const workers = [0, 1, 2, 3].map(worker)
    await new Promise((r) => setTimeout(r, 300))
    await server.stop('SIGKILL')
    await new Promise((r) => setTimeout(r, 200))
    stop = true
    await Promise.all(workers)
    expect(acked.length).toBeGreaterThan(20)
    expect(failed).toBeGreaterThan(0) // records were in flight when it died
    const again = await startRedis({ port: server.port, dir: server.dir, args: ['--appendonly', 'yes', '--appendfsync', 'always'] })
    servers.push(again)
    const fresh = await Ledger.open({ store: again.url, maxBytes: 1 })
    let lost = 0
    for (const { h, content } of acked) {
      if ((await fresh.fetch(h.memId, { namespace: h.namespace, format: 'full' })) !== content) lost++
    }
    expect(lost).toBe(0)
    await Promise.all([l.close(), fresh.close()])
  }, 30000)
})

describe('SQLite: the write lock held by another process', () => {
  test('writes fail at their bound, certainly not recorded; reads, a new ledger and the event loop are not held', async () => {
    const db = path.join(dir, 'locked.db')
    const setup = await Ledger.open({ store: `sqlite:${db}` })
    const h0 = await setup.record({ toolCallId: 'before', toolName: 't', content: payload(0) })
    await setup.close()

    // Another process: sqlite3 holding BEGIN IMMEDIATE until told to commit.
    const lock = await holdWriteLock(db)
    try {
      const t0 = performance.now()
      const l = new Ledger({ store: `sqlite:${db}`, timeoutMs: BOUND, maxBytes: 1 })
      expect(performance.now() - t0).toBeLessThan(50) // the constructor does not wait
      const watch = loopWatch()
      const records = Array.from({ length: 12 }, (_, i) => timed(t0, l.record({ toolCallId: `l${i}`, toolName: 't', content: payload(i + 1) })))
      const reads = Array.from({ length: 6 }, () => timed(t0, l.fetch(h0.memId, { jsonPath: 'i' })))
      const readMs = await readFileMs()
      const done = await Promise.all([...records, ...reads])
      const worstLag = watch()
      expect(readMs).toBeLessThan(FREE_MS)
      expect(worstLag).toBeLessThan(FREE_MS)
      for (const r of done.slice(0, 12)) {
        expect(r.ms).toBeLessThan(BOUND + SLACK)
        expect(r.error).toMatchObject({ code: 'ERR_SYMFONIC_STORE_TIMEOUT' })
        // Nothing was written: the outcome is certain.
        expect(r.error.message).toMatch(/^ERR_SYMFONIC_STORE_TIMEOUT: store put failed: .*no answer within 1000 ms; the result was not recorded$/)
      }
      // WAL readers do not wait for the writer.
      for (const r of done.slice(12)) expect(r.value).toBe('0')
      expect(done.slice(12).every((r) => r.ms < BOUND)).toBe(true)
      await lock.release()
      const h = await l.record({ toolCallId: 'after', toolName: 't', content: payload(99) })
      expect(await l.fetch(h.memId, { jsonPath: 'i' })).toBe('99')
      await l.close()
    } finally {
      await lock.kill()
    }
  }, 20000)
})
