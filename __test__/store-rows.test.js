'use strict'
// needs: redis-server, sqlite3
// Rows read back from a store are untrusted input. Every field of a stored
// entry, in a real SQLite file (edited with the sqlite3 tool) and in a real
// redis-server (edited over RESP), is cut, bit-flipped, set to huge or
// negative lengths or an unknown codec, deleted, or given another entry's
// value; a ledger with nothing in memory then answers each read with the
// entry exactly as recorded or a `corrupt row` error (recall: a
// `[tool_memory error: ...]` answer), never anything else, a crash or an
// internal error; and recording the result again repairs the entry. A SQLite
// file deleted or replaced under a running ledger fails its records loudly.

const { execFileSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { Ledger, recall } = require('..')
const { startRedis } = require('./support/redis-server.js')
const resp = require('./support/resp.js')

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'symfonic-rows-'))
let n = 0
const dbFile = () => path.join(dir, `rows-${n++}.db`)
let redis = null
let client = null

beforeAll(async () => {
  redis = await startRedis({ dir })
  client = await resp.connect(redis.port)
}, 15000)

afterAll(async () => {
  if (client) client.close()
  if (redis) await redis.stop()
  fs.rmSync(dir, { recursive: true, force: true })
})

function sqlite(db, sql) {
  try {
    return execFileSync('sqlite3', [db, sql], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim()
  } catch (e) {
    if (e.code === 'ENOENT') throw new Error('these tests need the sqlite3 command-line tool (apt-get install sqlite3)')
    throw e
  }
}

// A field's name in a Redis hash and its column in the SQLite table.
const FIELDS = {
  call: 'tool_call_id',
  tool: 'tool_name',
  size: 'size_chars',
  summary: 'summary',
  schema: 'schema',
  preview: 'preview',
  stub: 'stub',
  wtf8: 'wtf8',
  codec: 'codec',
  len: 'raw_len',
  exp: 'expires_at',
  p: 'payload',
  seal: 'seal',
}

// What a field becomes: a value (null: deleted; a string of digits: an
// integer; a Buffer: bytes), from the field's own bytes and the other entry's.
const MUTATIONS = {
  huge: () => '99999999999',
  max: () => '18446744073709551615',
  negative: () => '-1',
  codec: () => '7',
  deleted: () => null,
  cut: (mine) => mine && mine.subarray(0, mine.length >> 1),
  flipped: (mine) => {
    if (!mine || mine.length === 0) return mine
    const b = Buffer.from(mine)
    b[b.length >> 1] ^= 0x10
    return b
  },
  others: (mine, theirs) => theirs,
}

// The two stores, each read and written field by field.
function sqliteRows(db, ns) {
  const where = (id) => `WHERE namespace = '${ns}' AND mem_id = '${id}'`
  return {
    store: `sqlite:${db}`,
    async read(id, field) {
      const [type, hex] = sqlite(db, `SELECT typeof(${FIELDS[field]}), hex(${FIELDS[field]}) FROM entries ${where(id)}`).split('|')
      return type === 'null' ? null : Buffer.from(hex, 'hex')
    },
    async write(id, field, v) {
      let literal = 'NULL'
      if (typeof v === 'string') literal = v
      else if (Buffer.isBuffer(v)) {
        const hex = `X'${v.toString('hex')}'`
        literal = Buffer.from(v.toString('utf8')).equals(v) ? `CAST(${hex} AS TEXT)` : hex
      }
      try {
        // Not fsynced: the edit only has to be there for the next read.
        sqlite(db, `PRAGMA synchronous = OFF; UPDATE entries SET ${FIELDS[field]} = ${literal} ${where(id)}`)
      } catch {
        // a NOT NULL column refuses NULL: that edit cannot be made to the file
      }
    },
  }
}

function redisRows(prefix, ns) {
  // The namespace is the key's hash tag, its braces and % percent-encoded.
  const tag = ns.replace(/[%{}]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
  const key = (id) => `${prefix}{${tag}}:${id}`
  return {
    store: `${redis.url}?prefix=${prefix}`,
    read: (id, field) => client.call('HGET', key(id), field),
    async write(id, field, v) {
      if (v === null || v === undefined) await client.call('HDEL', key(id), field)
      else await client.call('HSET', key(id), field, v)
    },
  }
}

const catalog = JSON.stringify({ rows: Array.from({ length: 300 }, (_, i) => ({ sku: `S-${i}`, price: i / 4 })) })
const log = Array.from({ length: 400 }, (_, i) => `2026-01-01T00:00:${String(i % 60).padStart(2, '0')} INFO request ${i}`).join('\n')
const lossless = 'a\uD800b \uDFFF c😀 '.repeat(40)
const CONTENTS = [catalog, log, lossless, 'tiny']

const input = (i, ns) => ({ toolCallId: `call-${i}`, toolName: `tool_${i}`, toolArgs: { page: i }, content: CONTENTS[i], namespace: ns })

const CORRUPT = (id) => `[tool_memory error: the stored copy of ${id} failed its integrity check and was not served; it can no longer be recalled]`
const NOT_FOUND = (id, ns) => `[tool_memory not found: ${id} in ${ns ? `namespace '${ns}'` : 'the default namespace'}]`
const EXPIRED = (id) => `[tool_memory not found: ${id} has expired (its time to live passed); it can no longer be recalled]`

// Each ledger the tests make, closed at the end (its store's threads and connections with it).
const ledgers = []
function ledger(options) {
  const l = new Ledger(options)
  ledgers.push(l)
  return l
}
afterEach(async () => {
  await Promise.all(ledgers.splice(0).map((l) => l.close()))
})

// Every read of `h` by a ledger with nothing in memory: the entry as
// recorded, or an error that says the row is corrupt. With its expiry
// edited, the entry may also be gone.
async function readsServeNothingTampered(rows, h, content, field) {
  const { memId: id, namespace: ns } = h
  const mayExpire = field === 'exp'
  // A ledger with nothing in memory: each read goes to the store until one succeeds.
  const l = ledger({ store: rows.store })
  let got
  try {
    got = await l.handle(id, { namespace: ns })
  } catch (e) {
    expect(e.code).toBe('ERR_SYMFONIC_STORE')
    expect(e.message).toContain('corrupt row')
    got = undefined
  }
  const served = Boolean(got)
  if (got === null) {
    expect(mayExpire).toBe(true) // an edited expiry may have ended it
    expect(await l.stub(id, { namespace: ns })).toBeNull()
  } else if (served) {
    expect(got).toEqual(h)
    expect(await l.stub(id, { namespace: ns })).toBe(h.stub)
  } else {
    await expect(l.stub(id, { namespace: ns })).rejects.toThrow(/corrupt row/)
  }
  expect((await l.fetch(id, { namespace: ns, format: 'full' })) === content).toBe(served)
  const answer = await recall(l, id, { namespace: ns, format: 'full', maxOutputChars: 1e7 })
  if (served) expect(answer).toBe(content)
  else if (![NOT_FOUND(id, ns), EXPIRED(id)].includes(answer) || !mayExpire) expect(answer.startsWith(CORRUPT(id))).toBe(true)
  // Recording the same result again repairs the entry.
  expect(await l.record(input(CONTENTS.indexOf(content), ns))).toEqual(h)
  expect(await recall(ledger({ store: rows.store }), id, { namespace: ns, format: 'full', maxOutputChars: 1e7 })).toBe(content)
  return served
}

async function tamperEveryField(rows, ns) {
  const writer = ledger({ store: rows.store })
  const handles = []
  for (let i = 0; i < CONTENTS.length; i++) handles.push(await writer.record(input(i, ns)))
  let k = 0
  const seen = { served: 0, refused: 0 }
  for (const field of Object.keys(FIELDS)) {
    for (const [name, mutate] of Object.entries(MUTATIONS)) {
      const i = k++ % CONTENTS.length
      const h = handles[i]
      const other = handles[(i + 1) % CONTENTS.length]
      const v = mutate(await rows.read(h.memId, field), await rows.read(other.memId, field))
      await rows.write(h.memId, field, v)
      try {
        seen[(await readsServeNothingTampered(rows, h, CONTENTS[i], field)) ? 'served' : 'refused']++
      } catch (e) {
        e.message = `${field} ${name}: ${e.message}`
        throw e
      }
    }
  }
  return seen
}

describe('tampered rows', () => {
  test('SQLite: every field cut, flipped, huge, negative, deleted or another entry’s: served as recorded or refused, then repaired', async () => {
    const db = dbFile()
    const seen = await tamperEveryField(sqliteRows(db, 'rows'), 'rows')
    // Most edits change the row: those are refused (the rest, e.g. a later expiry, leave it sound).
    expect(seen.refused).toBeGreaterThan(seen.served * 3)
    expect(sqlite(db, 'PRAGMA integrity_check')).toBe('ok')
  }, 60000)

  test('Redis: every field of the hash, the same', async () => {
    const seen = await tamperEveryField(redisRows('rows:', 'r{1}'), 'r{1}')
    expect(seen.refused).toBeGreaterThan(seen.served * 3)
  }, 60000)

  test('a row whose length field is 99,999,999,999 or 2^64-1 answers an error, never an abort or an internal error', async () => {
    for (const rows of [sqliteRows(dbFile(), 'len'), redisRows('len:', 'len')]) {
      const h = await ledger({ store: rows.store }).record(input(0, 'len'))
      for (const len of ['99999999999', '18446744073709551615']) {
        await rows.write(h.memId, 'len', len)
        const l = ledger({ store: rows.store })
        expect(await recall(l, h.memId, { namespace: 'len' })).toBe(CORRUPT(h.memId))
        expect(await l.fetch(h.memId, { namespace: 'len' })).toMatch(/^\[tool_memory error: store read failed for trm_[0-9a-f]{12}: store get failed: corrupt row: field 'len' is (\d+, over 4000000000|not an integer)/)
        await expect(l.handle(h.memId, { namespace: 'len' })).rejects.toMatchObject({ code: 'ERR_SYMFONIC_STORE' })
      }
    }
  })

  test('an edited stub or tool name is never served', async () => {
    for (const rows of [sqliteRows(dbFile(), 'meta'), redisRows('meta:', 'meta')]) {
      const h = await ledger({ store: rows.store }).record(input(1, 'meta'))
      await rows.write(h.memId, 'stub', Buffer.from(h.stub.replace('tool_1', 'tool_evil')))
      await expect(ledger({ store: rows.store }).stub(h.memId, { namespace: 'meta' })).rejects.toThrow(/corrupt row: its fields do not match their seal/)
      await ledger({ store: rows.store }).record(input(1, 'meta'))
      await rows.write(h.memId, 'tool', Buffer.from('tool_evil'))
      await expect(ledger({ store: rows.store }).handle(h.memId, { namespace: 'meta' })).rejects.toThrow(/seal/)
    }
  })
})

describe('a SQLite file deleted or replaced under a running ledger', () => {
  test('deleted: records reject with ERR_SYMFONIC_STORE instead of going into a file no process opens again', async () => {
    const db = dbFile()
    const l = ledger({ store: `sqlite:${db}` })
    const kept = await l.record(input(3, ''))
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(db + suffix, { force: true })
    await expect(l.record(input(1, ''))).rejects.toMatchObject({
      code: 'ERR_SYMFONIC_STORE',
      message: expect.stringContaining(`${db} was deleted after this ledger opened it`),
    })
    // Reads that reach the store fail as loudly (an empty answer would say the entry is gone).
    await expect(l.handle('trm_000000000000')).rejects.toMatchObject({
      code: 'ERR_SYMFONIC_STORE',
      message: expect.stringContaining('was deleted after this ledger opened it'),
    })
    // What is in memory still answers; nothing more is acknowledged.
    expect(await recall(l, kept.memId, { format: 'full' })).toBe(CONTENTS[3])
    const next = ledger({ store: `sqlite:${db}` })
    expect(await next.handle(kept.memId)).toBeNull()
    expect(next.stats().storeMisses).toBe(1)
  })

  test('a relative path goes on naming the file it named when the ledger was made after the process changes directory', async () => {
    const sub = fs.mkdtempSync(path.join(dir, 'cwd-'))
    // The directory changes before the store has opened (it opens in the background).
    const script = `
      const { Ledger } = require(${JSON.stringify(path.join(__dirname, '..'))})
      const l = new Ledger({ store: 'sqlite:./rel.db', maxBytes: 1 })
      process.chdir(${JSON.stringify(sub)})
      ;(async () => {
        const a = await l.record({ toolCallId: 'a', toolName: 't', content: 'before' })
        const b = await l.record({ toolCallId: 'b', toolName: 't', content: 'after' })
        await l.record({ toolCallId: 'c', toolName: 't', content: 'evicts b from memory' })
        console.log(JSON.stringify([a.memId, b.memId, (await l.handle(a.memId)).memId, (await l.handle(b.memId)).memId]))
        await l.close()
      })()`
    const [a, b, a2, b2] = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: dir, encoding: 'utf8' }))
    expect([a2, b2]).toEqual([a, b])
    expect(fs.existsSync(path.join(sub, 'rel.db'))).toBe(false)
    const again = ledger({ store: `sqlite:${path.join(dir, 'rel.db')}` })
    expect((await again.handle(b)).memId).toBe(b)
  })

  test('replaced by another file: records reject too; a new ledger on the path works', async () => {
    const db = dbFile()
    const other = dbFile()
    const l = ledger({ store: `sqlite:${db}` })
    await l.record(input(3, ''))
    await (await Ledger.open({ store: `sqlite:${other}` })).close()
    fs.renameSync(other, db)
    await expect(l.record(input(1, ''))).rejects.toMatchObject({
      code: 'ERR_SYMFONIC_STORE',
      message: expect.stringContaining('was replaced by another file'),
    })
    const h = await ledger({ store: `sqlite:${db}` }).record(input(1, ''))
    expect(await recall(ledger({ store: `sqlite:${db}` }), h.memId, { format: 'full' })).toBe(CONTENTS[1])
  })
})
