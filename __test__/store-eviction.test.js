'use strict'
// needs: redis-server
// What a Redis server's settings do to acknowledged entries, made visible:
// an eviction policy that can drop them is warned once (process 'warning',
// type SymfonicWarning), a recall of an entry the server evicted says so
// (not "not found"), and a payload above the server's proto-max-bulk-len is
// refused with that reason before it is sent.

const { execFile } = require('node:child_process')
const crypto = require('node:crypto')
const path = require('node:path')
const { Ledger, recall } = require('..')
const { startRedis } = require('./support/redis-server.js')

const CHILD = path.join(__dirname, 'support', 'warn-child.js')
const servers = []
afterAll(() => Promise.all(servers.map((s) => s.stop())))

async function redis(args) {
  const s = await startRedis({ args })
  servers.push(s)
  return s
}

// The warnings a child process saw at each of its steps (see support/warn-child.js).
function warnings(url, mode) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [CHILD, url, mode], (err, stdout) => {
      const line = stdout.trim().split('\n').pop() || ''
      if (err || !line.startsWith('{')) return reject(new Error(`child failed: ${line || err}`))
      resolve(JSON.parse(line).steps)
    })
  })
}

// Random bytes as base64: zstd cannot shrink it much.
const noise = (bytes) => crypto.randomBytes(bytes).toString('base64')

describe('eviction policies', () => {
  // allkeys-lfu: the namespace's index, touched by every record, is the last
  // key it evicts (under allkeys-lru it is the most recently used, but LRU is
  // sampled: it can go too, and then an evicted entry reads as not found).
  test('allkeys-lfu: warned once at open; a recall of an entry the server evicted says so, distinctly from an unknown id', async () => {
    const server = await redis(['--maxmemory', '4mb', '--maxmemory-policy', 'allkeys-lfu'])
    const [first, second] = await warnings(server.url, 'open')
    expect(first).toHaveLength(1)
    expect(first[0]).toMatch(new RegExp(`Redis redis://127\\.0\\.0\\.1:${server.port}/0 has maxmemory-policy allkeys-lfu: .*acknowledged ledger entries included.*Set maxmemory-policy noeviction`))
    // Once per process: a second ledger on the server is not warned again.
    expect(second).toEqual([])
    const writer = await Ledger.open({ store: server.url })

    const handles = []
    for (let i = 0; i < 80; i++) handles.push(await writer.record({ toolCallId: `e${i}`, toolName: 't', content: noise(75000), namespace: 'evict' }))
    const evictedKeys = Number(/evicted_keys:(\d+)/.exec(await server.command('INFO stats'))[1])
    expect(evictedKeys).toBeGreaterThan(0)
    expect(await server.command('EXISTS symfonic:{evict}:index')).toBe(':1\r\n')

    const reader = await Ledger.open({ store: server.url, maxBytes: 1 })
    const answers = []
    for (const h of handles) answers.push(await recall(reader, h.memId, { namespace: 'evict', offset: 0, maxChars: 10 }))
    const evicted = answers.filter((a) => a.startsWith('[tool_memory error: '))
    expect(evicted.length).toBeGreaterThan(0)
    for (const a of evicted) {
      // What is known (an evicting policy: evicted, or deleted by another client), and no server address.
      expect(a).toMatch(/^\[tool_memory error: trm_[0-9a-f]{12} is gone from the store before its expiry: the store evicted it when it was full, or something other than this ledger deleted it; it can no longer be recalled\]$/)
    }
    // The rest are whole (their first 10 characters, base64).
    for (const a of answers) if (!a.startsWith('[')) expect(a).toMatch(/^[A-Za-z0-9+/]{10}$/)
    // An id never recorded is not "evicted".
    expect(await recall(reader, 'trm_0123456789ab', { namespace: 'evict' })).toBe("[tool_memory not found: trm_0123456789ab in namespace 'evict']")
    // An evicted entry is gone for has() too.
    const gone = answers.findIndex((a) => a.startsWith('[tool_memory error: '))
    expect(await reader.has(handles[gone].memId, { namespace: 'evict' })).toBe(false)
    await Promise.all([writer.close(), reader.close()])
  }, 30000)

  test('volatile-lru: warned once a record sets ttlSeconds, not before', async () => {
    const server = await redis(['--maxmemory', '64mb', '--maxmemory-policy', 'volatile-lru'])
    const [before, first, again] = await warnings(server.url, 'ttl')
    expect(before).toEqual([])
    expect(first).toHaveLength(1)
    expect(first[0]).toMatch(/has maxmemory-policy volatile-lru: entries recorded with ttlSeconds may be evicted before their expiry/)
    expect(again).toEqual([])
  })

  test('noeviction (the default): no warning', async () => {
    const server = await redis(['--maxmemory', '64mb'])
    expect(await warnings(server.url, 'ttl')).toEqual([[], [], []])
  })

  test('a server that refuses CONFIG: what could not be checked is warned once', async () => {
    const server = await redis(['--rename-command', 'CONFIG', '""'])
    const [first, second] = await warnings(server.url, 'open')
    expect(first).toHaveLength(1)
    expect(first[0]).toMatch(/did not let us read its maxmemory-policy .*make sure it is noeviction/)
    expect(second).toEqual([])
  })
})

describe("the server's largest value (proto-max-bulk-len)", () => {
  test('a payload above it is refused with that reason, nothing sent, and the connection stays usable', async () => {
    const server = await redis(['--proto-max-bulk-len', '1mb'])
    const l = await Ledger.open({ store: server.url })
    const t0 = Date.now()
    const e = await l.record({ toolCallId: 'big', toolName: 't', content: noise(1500000) }).catch((err) => err)
    expect(Date.now() - t0).toBeLessThan(2000)
    expect(e.code).toBe('ERR_SYMFONIC_STORE')
    expect(e.message).toMatch(/the payload is \d+ bytes once compressed, more than the server takes in one command \(1048576 bytes: its proto-max-bulk-len or client-query-buffer-limit\); the result was not recorded$/)
    const h = await l.record({ toolCallId: 'small', toolName: 't', content: 'fits' })
    expect(await new Ledger({ store: server.url }).fetch(h.memId, { format: 'full' })).toBe('fits')
    await l.close()
  })
})
