'use strict'
// A ledger's life: Ledger.open (resolves once its store is open), has(),
// close() and Symbol.asyncDispose (stores released; every later call fails
// with ERR_SYMFONIC_CLOSED), and the in-memory store 'sqlite::memory:'.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { Ledger, recall } = require('..')

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'symfonic-close-'))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
let n = 0
const dbFile = () => path.join(dir, `l-${n++}.db`)

const closed = { code: 'ERR_SYMFONIC_CLOSED' }

async function everyCallFailsClosed(l) {
  const id = 'trm_0123456789ab'
  await expect(l.record({ toolCallId: 'c', toolName: 't', content: 'x' })).rejects.toMatchObject(closed)
  await expect(l.record({ toolCallId: 'c', toolName: 't', content: 'x' })).rejects.toThrow(/^ERR_SYMFONIC_CLOSED: Ledger.record\(input\): the ledger is closed/)
  await expect(l.fetch(id)).rejects.toMatchObject(closed)
  await expect(l.handle(id)).rejects.toMatchObject(closed)
  await expect(l.stub(id)).rejects.toMatchObject(closed)
  await expect(l.has(id)).rejects.toMatchObject(closed)
  await expect(l.delete(id)).rejects.toMatchObject(closed)
  await expect(l.clear()).rejects.toMatchObject(closed)
  // The model-facing recall answers, never throws.
  expect(await recall(l, id)).toMatch(/^\[tool_memory error: /)
  expect(l.stats().entries).toBe(0)
}

describe('close()', () => {
  test('a ledger in memory: entries freed, every later call rejects (sync ones throw) with ERR_SYMFONIC_CLOSED, closing again resolves', async () => {
    const l = new Ledger()
    const h = await l.record({ toolCallId: 'c', toolName: 't', content: 'kept until close' })
    expect(await l.has(h.memId)).toBe(true)
    expect(l.stats().entries).toBe(1)
    await l.close()
    await everyCallFailsClosed(l)
    expect(() => l.recordSync({ toolCallId: 'c', toolName: 't', content: 'x' })).toThrow(expect.objectContaining(closed))
    expect(() => l.fetchSync(h.memId)).toThrow(expect.objectContaining(closed))
    await expect(l.close()).resolves.toBeUndefined()
  })

  test('a SQLite file: the call in flight ends, then the connections close (SQLite removes the WAL file)', async () => {
    const db = dbFile()
    const l = await Ledger.open({ store: `sqlite:${db}` })
    const inFlight = l.record({ toolCallId: 'c', toolName: 't', content: 'in flight at close' })
    const closing = l.close()
    const h = await inFlight
    await closing
    expect(fs.existsSync(`${db}-wal`)).toBe(false)
    await everyCallFailsClosed(l)
    // Another ledger on the file has the entry.
    const other = await Ledger.open({ store: `sqlite:${db}` })
    expect(await other.fetch(h.memId, { format: 'full' })).toBe('in flight at close')
    await other.close()
  })

  test('calls started before close() end normally, however soon close() follows (100 rounds)', async () => {
    // A call is admitted where it starts, on the JS thread: close() waits for
    // it even when its task has not run yet (it used to be refused now and then).
    for (let i = 0; i < 100; i++) {
      const l = await Ledger.open({ store: 'sqlite::memory:' })
      const recorded = l.record({ toolCallId: `c${i}`, toolName: 't', content: `round ${i}` })
      const read = l.fetch('trm_0123456789ab')
      const closing = l.close()
      await expect(recorded).resolves.toMatchObject({ toolCallId: `c${i}` })
      await expect(read).resolves.toMatch(/^\[tool_memory not found/)
      await closing
      await expect(l.fetch('trm_0123456789ab')).rejects.toMatchObject(closed)
    }
  })

  test('Symbol.asyncDispose closes', async () => {
    const l = await Ledger.open({ store: 'sqlite::memory:' })
    expect(typeof Symbol.asyncDispose === 'symbol' ? typeof l[Symbol.asyncDispose] : 'function').toBe('function')
    if (typeof Symbol.asyncDispose !== 'symbol') return // Node without the symbol: close() only
    await l[Symbol.asyncDispose]()
    await expect(l.has('trm_0123456789ab')).rejects.toMatchObject(closed)
  })
})

describe('errors from the native side', () => {
  // Each call in its own async function: the frame the stack must name.
  const calls = {
    record: (l) => l.record({ toolCallId: 'c', toolName: 't', content: 'x' }),
    fetch: (l) => l.fetch('trm_0123456789ab'),
    handle: (l) => l.handle('trm_0123456789ab'),
    stub: (l) => l.stub('trm_0123456789ab'),
    has: (l) => l.has('trm_0123456789ab'),
    delete: (l) => l.delete('trm_0123456789ab'),
    clear: (l) => l.clear(),
  }
  test('carry the stack of the code that awaited them, their code and message kept', async () => {
    const l = new Ledger()
    await l.close()
    for (const [name, call] of Object.entries(calls)) {
      const appCode = { [`app_${name}`]: async () => await call(l) }[`app_${name}`]
      const e = await appCode().catch((err) => err)
      expect(e.code).toBe('ERR_SYMFONIC_CLOSED')
      expect(e.message).toMatch(new RegExp(`^ERR_SYMFONIC_CLOSED: Ledger\\.${name}\\(.*\\): the ledger is closed`))
      expect(e.stack).toMatch(new RegExp(`^Error: ${e.message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n\\s+at (async )?app_${name} \\(.*ledger-close\\.test\\.js:\\d+:\\d+\\)`))
    }
    // A failed open too.
    const openIt = async () => await Ledger.open({ store: `sqlite:${path.join(dir, 'no-such-dir', 'x.db')}` })
    const e = await openIt().catch((err) => err)
    expect(e.code).toBe('ERR_SYMFONIC_STORE')
    expect(e.stack).toMatch(/\n\s+at (async )?openIt \(.*ledger-close\.test\.js:\d+:\d+\)/)
  })
})

describe('Ledger.open(options)', () => {
  test('resolves to a Ledger (a subclass too), its store open; without a store at once', async () => {
    const a = await Ledger.open()
    expect(a).toBeInstanceOf(Ledger)
    class Mine extends Ledger {}
    const b = await Mine.open({ maxBytes: 1024 })
    expect(b).toBeInstanceOf(Mine)
    const db = dbFile()
    const c = await Ledger.open({ store: `sqlite:${db}` })
    expect(fs.existsSync(db)).toBe(true) // opened and set up before it resolved
    await Promise.all([a.close(), b.close(), c.close()])
  })

  test('the constructor returns at once and the first call waits for the open', async () => {
    const db = dbFile()
    const l = new Ledger({ store: `sqlite:${db}` })
    const h = await l.record({ toolCallId: 'c', toolName: 't', content: 'recorded as the open ends' })
    expect(await l.has(h.memId)).toBe(true)
    await l.close()
  })
})

describe('has(memId, { namespace })', () => {
  test('in memory, in the store (another ledger on the file), per namespace; expired and deleted entries are not held', async () => {
    const db = dbFile()
    const a = await Ledger.open({ store: `sqlite:${db}` })
    const h = await a.record({ toolCallId: 'c', toolName: 't', content: 'held', namespace: 'thread-1' })
    const brief = await a.record({ toolCallId: 'b', toolName: 't', content: 'brief', namespace: 'thread-1', ttlSeconds: 0.05 })
    expect(await a.has(h.memId, { namespace: 'thread-1' })).toBe(true)
    expect(await a.has(h.memId)).toBe(false)
    expect(await a.has(h.memId, { namespace: 'thread-2' })).toBe(false)
    const b = await Ledger.open({ store: `sqlite:${db}` })
    expect(b.stats().entries).toBe(0)
    expect(await b.has(h.memId, { namespace: 'thread-1' })).toBe(true)
    expect(b.stats()).toMatchObject({ storeHits: 1, hits: 0, misses: 0 })
    await new Promise((r) => setTimeout(r, 80))
    expect(await b.has(brief.memId, { namespace: 'thread-1' })).toBe(false)
    expect(await a.delete(h.memId, { namespace: 'thread-1' })).toBe(true)
    expect(await a.has(h.memId, { namespace: 'thread-1' })).toBe(false)
    await expect(a.has('')).rejects.toThrow(TypeError)
    await Promise.all([a.close(), b.close()])
  })
})

describe("the in-memory store 'sqlite::memory:'", () => {
  test('a store like any other (entries past maxBytes reload from it), private to its ledger, and the sync twins serve it', async () => {
    const l = await Ledger.open({ store: 'sqlite::memory:', maxBytes: 1 })
    const a = l.recordSync({ toolCallId: 'a', toolName: 't', content: JSON.stringify({ rows: [1, 2, 3] }) })
    const b = await l.record({ toolCallId: 'b', toolName: 't', content: 'second' }) // evicts a from memory
    expect(l.stats().evictions).toBeGreaterThan(0)
    expect(l.fetchSync(a.memId, { jsonPath: 'rows[-1]' })).toBe('3')
    expect(await l.stub(b.memId)).toBe(b.stub)
    expect(l.stats().storeHits).toBeGreaterThan(0)
    // Another ledger's in-memory store is another database.
    const other = await Ledger.open({ store: 'sqlite::memory:' })
    expect(await other.has(a.memId)).toBe(false)
    await Promise.all([l.close(), other.close()])
  })
})
