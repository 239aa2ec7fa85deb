'use strict'
// needs: sqlite3, cargo
// The SQLite store below the Ledger, on real files in the OS temp dir: restarts
// (a new process on the same file), a writer killed with SIGKILL, two processes
// on one file, TTL expiry, eviction from memory, and store errors.

const { execFileSync, spawn } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const hooks = require('./support/hooks.js')
const { Ledger, recall } = require('..')

const CHILD = path.join(__dirname, 'support', 'store-child.js')
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'symfonic-store-'))
let n = 0
const dbFile = () => path.join(dir, `ledger-${n++}.db`)
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

// The sqlite3 command-line tool (Debian's `sqlite3`, installed by .ci/run when
// absent) inspects and breaks the database file from outside the addon.
function sqlite(db, sql) {
  try {
    return execFileSync('sqlite3', [db, sql], { encoding: 'utf8' }).trim()
  } catch (e) {
    if (e.code === 'ENOENT') throw new Error('these tests need the sqlite3 command-line tool (apt-get install sqlite3)')
    throw e
  }
}

function child(args, env) {
  return execFileSync(process.execPath, [CHILD, ...args], { encoding: 'utf8', env })
}

// Spawns a child and calls onLine for each line it prints; resolves with its exit.
function spawnChild(args, onLine) {
  const p = spawn(process.execPath, [CHILD, ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
  let buf = ''
  p.stdout.setEncoding('utf8')
  p.stdout.on('data', (d) => {
    buf += d
    let i
    while ((i = buf.indexOf('\n')) >= 0) {
      onLine(buf.slice(0, i), p)
      buf = buf.slice(i + 1)
    }
  })
  return { p, done: new Promise((resolve) => p.on('exit', (code, signal) => resolve({ code, signal }))) }
}

const { until } = require('./support/wait.js')

const catalog = JSON.stringify({
  meta: { source: 'test' },
  rows: Array.from({ length: 2000 }, (_, i) => ({ asin: `B0${i}`, price: i / 4, title: `widget ${i}` })),
})
const log = Array.from({ length: 3000 }, (_, i) => `2026-01-01 INFO worker-${i % 8} request ${i}`).join('\n') + '\nERROR code=E1234 boom'

describe('new Ledger({ store })', () => {
  test('the options are checked', () => {
    expect(() => new Ledger({ store: 'mysql://localhost' })).toThrow(TypeError)
    expect(() => new Ledger({ store: 'redis://h/?prefix=a{b}' })).toThrow(/may not contain/)
    expect(() => new Ledger({ store: 'sqlite:' })).toThrow(/store must be 'sqlite:<path>'/)
    expect(() => new Ledger({ store: 'sqlite::memory' })).toThrow(/not supported/)
    expect(() => new Ledger({ store: 'sqlite:file:x.db' })).toThrow(/not supported/)
    // The URL form of ORMs would read as a path from the root: refused, naming the form meant.
    expect(() => new Ledger({ store: 'sqlite://./ledger2.db' })).toThrow(/^new Ledger\(options\): store 'sqlite:\/\/\.\/ledger2\.db' is a URL; .* 'sqlite:\.\/ledger2\.db'$/)
    expect(() => new Ledger({ store: 'sqlite:///tmp/ledger2.db' })).toThrow(/'sqlite:\/tmp\/ledger2\.db'$/)
    expect(() => new Ledger({ store: [] })).toThrow(/^new Ledger\(options\): a list of Redis seed URLs may not be empty$/)
    expect(() => new Ledger({ store: ['sqlite:x'] })).toThrow(/a Redis store is 'redis:\/\/host:port\/db', got 'sqlite:x'/)
    expect(() => new Ledger({ store: 42 })).toThrow(/^new Ledger\(options\): store must be a string or an array of strings \(got number 42\)$/)
    expect(() => new Ledger({ timeoutMs: 0 })).toThrow(/timeoutMs must be a positive number of milliseconds/)
    expect(() => new Ledger({ timeoutMs: Infinity })).toThrow(TypeError)
    expect(() => new Ledger({ ttlSeconds: 0 })).toThrow(/ttlSeconds must be a positive number/)
    expect(() => new Ledger({ ttlSeconds: -1 })).toThrow(TypeError)
    expect(() => new Ledger({ stor: 'sqlite:x' })).toThrow(/did you mean "store"/)
    const l = new Ledger()
    expect(() => l.recordSync({ toolCallId: 'c', toolName: 't', content: 'x', ttlSeconds: NaN })).toThrow(/Ledger.recordSync\(input\): ttlSeconds/)
    expect(l.stats()).toMatchObject({ storeHits: 0, storeMisses: 0, storeErrors: 0 })
  })

  test('a store that cannot be opened: the constructor returns, Ledger.open and every call reject with ERR_SYMFONIC_STORE', async () => {
    const options = { store: `sqlite:${path.join(dir, 'missing-dir', 'x.db')}` }
    const e = await Ledger.open(options).catch((err) => err)
    expect(e && e.name).toBe('Error') // a native error: of the main realm, not jest's
    expect(e.code).toBe('ERR_SYMFONIC_STORE')
    expect(e.message).toMatch(/^ERR_SYMFONIC_STORE: store open failed: /)
    const l = new Ledger(options)
    await expect(l.record({ toolCallId: 'c', toolName: 't', content: 'x' })).rejects.toMatchObject({
      code: 'ERR_SYMFONIC_STORE',
      message: expect.stringMatching(/^ERR_SYMFONIC_STORE: store open failed: .*not recorded/),
    })
    await expect(l.handle('trm_0123456789ab')).rejects.toMatchObject({ code: 'ERR_SYMFONIC_STORE' })
    expect(await l.fetch('trm_0123456789ab')).toMatch(/^\[tool_memory error: store read failed for trm_0123456789ab: store open failed: /)
    // The next call tries the open again: once the directory exists, it works.
    fs.mkdirSync(path.join(dir, 'missing-dir'))
    const h = await l.record({ toolCallId: 'c', toolName: 't', content: 'x' })
    expect(await l.has(h.memId)).toBe(true)
    await l.close()
  })

  test('sync twins refuse a store on a file (they would block the JS thread on it)', async () => {
    const l = await Ledger.open({ store: `sqlite:${dbFile()}` })
    expect(() => l.recordSync({ toolCallId: 'c', toolName: 't', content: 'x' })).toThrow(TypeError)
    expect(() => l.recordSync({ toolCallId: 'c', toolName: 't', content: 'x' })).toThrow(/^Ledger.recordSync\(input\): this ledger's store \('sqlite:.*'\) is a file or a server.*use await ledger.record\(input\)/)
    expect(() => l.fetchSync('trm_0123456789ab')).toThrow(/^Ledger.fetchSync\(memId, options\): .*use await ledger.fetch/)
    expect(l.stats()).toMatchObject({ entries: 0, storeErrors: 0 })
    await l.close()
  })

  test('a relative path is relative to the cwd', () => {
    const out = execFileSync(process.execPath, ['-e', `const {Ledger}=require(${JSON.stringify(path.join(__dirname, '..'))}); Ledger.open({store:'sqlite:./rel.db'}).then((l) => l.record({toolCallId:'c',toolName:'t',content:'x'}).then(() => l.close()))`], { cwd: dir, encoding: 'utf8' })
    expect(out).toBe('')
    expect(fs.existsSync(path.join(dir, 'rel.db'))).toBe(true)
  })
})

describe('restart: a new process on the same file', () => {
  test('recalls every id (json_path, query, full) with identical stubs and handles', async () => {
    const db = dbFile()
    const ledger = new Ledger({ store: `sqlite:${db}`, previewChars: 120 })
    const lossless = 'a\uD800b \uDFFF c😀'.repeat(50)
    const items = []
    const reads = {
      catalog: [{ jsonPath: 'rows[-1].title' }, { jsonPath: '$.rows[0:2]' }, { query: 'B01999' }, { format: 'full' }, {}],
      log: [{ query: 'code=E1234' }, { offset: 10, maxChars: 30 }, { format: 'full', maxOutputChars: 500 }],
      lossless: [{ format: 'full' }, { query: '\uD800b' }, { offset: 1, maxChars: 3 }],
    }
    for (const [name, content, namespace] of [
      ['catalog', catalog, 'thread-1'],
      ['log', log, ''],
      ['lossless', lossless, 'thread-2'],
    ]) {
      const h = await ledger.record({ toolCallId: `call-${name}`, toolName: name, toolArgs: { page: 1 }, content, namespace })
      const expected = []
      for (const r of reads[name]) expected.push(await recall(ledger, h.memId, { ...r, namespace }))
      items.push({ memId: h.memId, namespace, reads: reads[name], handle: h, expected })
    }
    const idsFile = path.join(dir, 'ids.json')
    fs.writeFileSync(idsFile, JSON.stringify(items))
    const { answers, stats } = JSON.parse(child(['read', db, idsFile]))
    for (const [i, a] of answers.entries()) {
      expect(a.handle).toEqual(items[i].handle)
      expect(a.stub).toBe(items[i].handle.stub)
      expect(a.reads).toEqual(items[i].expected)
    }
    expect(answers[2].reads[0]).toBe(lossless)
    expect(answers[0].reads[0]).toBe('"widget 1999"')
    expect(stats).toMatchObject({ storeHits: 3, storeErrors: 0 })
  })
})

describe('durability', () => {
  test('a writer killed with SIGKILL loses no acknowledged record and leaves the file sound', async () => {
    const db = dbFile()
    const acked = []
    for (let round = 0; round < 3; round++) {
      let seen = 0
      const killAfter = 15 + round * 10
      const { done } = spawnChild(['loop', db], (line, p) => {
        const m = /^ack (trm_[0-9a-f]{12})$/.exec(line)
        if (!m) throw new Error(`unexpected child output: ${line}`)
        acked.push(m[1])
        if (++seen === killAfter) setTimeout(() => p.kill('SIGKILL'), round * 3)
      })
      expect((await done).signal).toBe('SIGKILL')
    }
    expect(acked.length).toBeGreaterThanOrEqual(15 + 25 + 35)
    const ledger = new Ledger({ store: `sqlite:${db}` })
    const missing = []
    for (const id of acked) if ((await ledger.handle(id, { namespace: 'kill' })) === null) missing.push(id)
    expect(missing).toEqual([])
    for (const id of acked.slice(0, 10)) expect(await recall(ledger, id, { format: 'full', namespace: 'kill' })).not.toMatch(/^\[tool_memory/)
    expect(sqlite(db, 'PRAGMA integrity_check')).toBe('ok')
  })
})

describe('two processes on one file', () => {
  test('one records, the other recalls each id as soon as it is acknowledged', async () => {
    const db = dbFile()
    const reader = new Ledger({ store: `sqlite:${db}` })
    const answers = []
    const { done } = spawnChild(['record', db, '12'], (line) => {
      const id = line.slice(4)
      answers.push(recall(reader, id, { offset: 0, maxChars: 20, namespace: 'kill' }))
    })
    expect((await done).code).toBe(0)
    const got = await Promise.all(answers)
    expect(got).toHaveLength(12)
    for (const a of got) expect(a).not.toMatch(/^\[tool_memory/)
    expect(reader.stats().storeHits).toBe(12)
  })

  test('a different result under an id another process stored is refused', async () => {
    const db = dbFile()
    const ledger = new (hooks.load().Ledger)({ store: `sqlite:${db}` })
    ledger.__forceMemIdForTest('trm_aaaaaaaaaaaa')
    await ledger.record({ toolCallId: 'c', toolName: 't', content: 'the first result' })
    expect(child(['collide', db, 'trm_aaaaaaaaaaaa'], hooks.env).trim()).toBe('ERR_SYMFONIC_MEM_ID_COLLISION')
    expect(await ledger.fetch('trm_aaaaaaaaaaaa', { format: 'full' })).toBe('the first result')
  })
})

describe('ttlSeconds', () => {
  test('entries expire in memory and in the store; a record may override the ledger TTL', async () => {
    const db = dbFile()
    const ledger = new Ledger({ store: `sqlite:${db}`, ttlSeconds: 0.15 })
    const short = await ledger.record({ toolCallId: 'a', toolName: 't', content: 'short lived' })
    const kept = await ledger.record({ toolCallId: 'b', toolName: 't', content: 'kept', ttlSeconds: Infinity })
    const longer = await ledger.record({ toolCallId: 'c', toolName: 't', content: 'an hour', ttlSeconds: 3600 })
    expect(await ledger.fetch(short.memId, { format: 'full' })).toBe('short lived')
    await until(async () => (await ledger.fetch(short.memId, { format: 'full' })) === `[tool_memory not found: ${short.memId} has expired (its time to live passed); it can no longer be recalled]`)
    const other = new Ledger({ store: `sqlite:${db}` })
    expect(await other.handle(short.memId)).toBeNull()
    expect(await other.handle(kept.memId)).not.toBeNull()
    expect(await other.fetch(longer.memId, { format: 'full' })).toBe('an hour')
    expect(await ledger.fetch(kept.memId, { format: 'full' })).toBe('kept')
  })

  test('works without a store too', async () => {
    const ledger = new Ledger({ ttlSeconds: 0.05 })
    const h = await ledger.record({ toolCallId: 'a', toolName: 't', content: 'x' })
    expect(await ledger.handle(h.memId)).not.toBeNull()
    await until(async () => (await ledger.handle(h.memId)) === null)
  })
})

describe('memory bound with a store', () => {
  test('entries evicted from memory stay recallable', async () => {
    const db = dbFile()
    const ledger = new Ledger({ store: `sqlite:${db}`, maxBytes: 20000 })
    const handles = []
    for (let i = 0; i < 60; i++) {
      handles.push(await ledger.record({ toolCallId: `c${i}`, toolName: 't', content: JSON.stringify({ i, pad: 'x'.repeat(4000) }) }))
    }
    expect(ledger.stats().evictions).toBeGreaterThan(50)
    for (const [i, h] of handles.entries()) {
      expect(await recall(ledger, h.memId, { jsonPath: 'i' })).toBe(String(i))
      expect(await ledger.stub(h.memId)).toBe(h.stub)
    }
    const s = ledger.stats()
    expect(s.storeHits).toBeGreaterThan(50)
    expect(s.bytes).toBeLessThan(20000 + 6000)
  })

  test('delete and clear reach the store', async () => {
    const db = dbFile()
    const a = new Ledger({ store: `sqlite:${db}` })
    const h1 = await a.record({ toolCallId: '1', toolName: 't', content: 'one', namespace: 'x' })
    const h2 = await a.record({ toolCallId: '2', toolName: 't', content: 'two', namespace: 'y' })
    expect(await a.delete(h1.memId, { namespace: 'x' })).toBe(true)
    expect(await a.clear({ namespace: 'y' })).toBe(1)
    const b = new Ledger({ store: `sqlite:${db}` })
    expect(await b.handle(h1.memId, { namespace: 'x' })).toBeNull()
    expect(await b.handle(h2.memId, { namespace: 'y' })).toBeNull()
  })
})

describe('store errors', () => {
  test('a failed write rejects record with ERR_SYMFONIC_STORE; a failed read is a recall answer', async () => {
    const db = dbFile()
    const ledger = new Ledger({ store: `sqlite:${db}`, maxBytes: 1 })
    const h = await ledger.record({ toolCallId: '1', toolName: 't', content: 'one' })
    await ledger.record({ toolCallId: '2', toolName: 't', content: 'two' }) // evicts the first from memory
    sqlite(db, 'DROP TABLE entries')
    await expect(ledger.record({ toolCallId: '3', toolName: 't', content: 'three' })).rejects.toMatchObject({
      code: 'ERR_SYMFONIC_STORE',
      message: expect.stringMatching(/^ERR_SYMFONIC_STORE: store put failed: .*not recorded/),
    })
    // The model's answer names no file and no error text; the app's fetch has them.
    expect(await recall(ledger, h.memId)).toBe(`[tool_memory error: the store could not be read for ${h.memId}; try again later]`)
    expect(await ledger.fetch(h.memId)).toMatch(/^\[tool_memory error: store read failed/)
    await expect(ledger.handle(h.memId)).rejects.toMatchObject({ code: 'ERR_SYMFONIC_STORE' })
    expect(ledger.stats().storeErrors).toBe(4)
  })
})
