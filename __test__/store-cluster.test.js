'use strict'
// needs: redis-server, redis-cli
// The Redis store on a real local Redis Cluster (3 primaries, each with a
// replica, made here with `redis-cli --cluster create`): a URL naming any
// node follows the cluster (slots, MOVED), as does a list of seed nodes; two
// processes share entries; a namespace's keys share one slot; a primary
// stopped and its replica promoted loses nothing that was replicated.

const { execFile } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { Ledger, recall } = require('..')
const { startCluster } = require('./support/redis-server.js')

const CHILD = path.join(__dirname, 'support', 'redis-child.js')
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'symfonic-cluster-'))
let cluster = null

beforeAll(async () => {
  cluster = await startCluster({ masters: 3, replicas: 1 })
}, 60000)

afterAll(async () => {
  if (cluster) await cluster.stop()
  fs.rmSync(dir, { recursive: true, force: true })
})

let files = 0
function writeJson(v) {
  const f = path.join(dir, `items-${files++}.json`)
  fs.writeFileSync(f, JSON.stringify(v))
  return f
}

function child(args) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [CHILD, ...args], { maxBuffer: 64 * 1024 * 1024 }, (err, stdout) => {
      const line = stdout.trim().split('\n').pop() || ''
      if (err || !line.startsWith('{')) return reject(new Error(`child failed: ${line || err}`))
      resolve(JSON.parse(line))
    })
  })
}

const content = (i) => JSON.stringify({ i, rows: Array.from({ length: 30 }, (_, k) => ({ k, sku: `SKU-${i}-${k}` })) })

describe('Redis Cluster', () => {
  test('two processes: a child records through one node URL (following MOVED), this one recalls through a list of seeds', async () => {
    // 30 namespaces: their slots spread over the three primaries.
    const items = Array.from({ length: 30 }, (_, i) => ({ name: `tool${i}`, content: content(i), namespace: `thread-${i}`, reads: [{ jsonPath: 'rows[-1].sku' }] }))
    const a = await child(['record', cluster.urls[0], writeJson(items)])
    const l = await Ledger.open({ store: cluster.urls.slice(1, 4), maxBytes: 1 })
    for (const [i, got] of a.answers.entries()) {
      expect(got.reads[0]).toBe(`"SKU-${i}-29"`)
      expect(await recall(l, got.memId, { namespace: `thread-${i}`, jsonPath: 'rows[-1].sku' })).toBe(`"SKU-${i}-29"`)
      expect(await l.stub(got.memId, { namespace: `thread-${i}` })).toBe(got.handle.stub)
    }
    // The entries did spread: every primary holds some.
    for (const p of await cluster.primaries()) expect(Number((await p.command('DBSIZE')).slice(1))).toBeGreaterThan(0)
    // And the child reads what this process records.
    const mine = await l.record({ toolCallId: 'mine', toolName: 't', content: content(99), namespace: 'thread-99' })
    const b = await child(['read', cluster.urls[5], writeJson([{ memId: mine.memId, namespace: 'thread-99', reads: [{ jsonPath: 'i' }] }])])
    expect(b.answers[0].reads[0]).toBe('99')
    expect(b.answers[0].handle).toEqual(mine)
    await l.close()
  }, 30000)

  test("namespaces are isolated, and a namespace's keys (entries and index) share one slot", async () => {
    const l = await Ledger.open({ store: cluster.urls[2] })
    const [ha, hb] = await Promise.all(['iso-a', 'iso-b'].map((namespace) => l.record({ toolCallId: 'same', toolName: 't', content: 'one result', namespace })))
    expect(ha.memId).toBe(hb.memId)
    const node = cluster.nodes[0]
    const slot = async (key) => (await node.command(`CLUSTER KEYSLOT ${key}`)).trim()
    expect(await slot(`symfonic:{iso-a}:${ha.memId}`)).toBe(await slot('symfonic:{iso-a}:index'))
    const other = await Ledger.open({ store: cluster.urls[4] })
    expect(await other.clear({ namespace: 'iso-a' })).toBe(1)
    expect(await recall(other, ha.memId, { namespace: 'iso-a', format: 'full' })).toBe(`[tool_memory not found: ${ha.memId} in namespace 'iso-a']`)
    expect(await recall(other, hb.memId, { namespace: 'iso-b', format: 'full' })).toBe('one result')
    expect(await recall(other, ha.memId, { namespace: 'iso-c', format: 'full' })).toBe(`[tool_memory not found: ${ha.memId} in namespace 'iso-c']`)
    // The default namespace too ('' is tagged '%': an empty tag would split an entry from its index).
    const hd = await l.record({ toolCallId: 'default', toolName: 't', content: 'in the default namespace' })
    expect(await slot(`symfonic:{%}:${hd.memId}`)).toBe(await slot('symfonic:{%}:index'))
    expect(await recall(other, hd.memId, { format: 'full' })).toBe('in the default namespace')
    expect(await other.clear({ namespace: '' })).toBe(1)
    await Promise.all([l.close(), other.close()])
  }, 20000)

  test('a database other than 0 is refused (a cluster has only database 0)', async () => {
    const url = cluster.urls[0].replace(/\/0$/, '/2')
    await expect(Ledger.open({ store: url })).rejects.toThrow(/a Redis Cluster has only database 0/)
  })

  test('a primary stopped, its replica promoted: every replicated entry is recalled, and records go on', async () => {
    const l = await Ledger.open({ store: cluster.urls, timeoutMs: 3000 })
    const handles = []
    for (let i = 0; i < 40; i++) handles.push(await l.record({ toolCallId: `f${i}`, toolName: 't', content: content(i), namespace: `fail-${i}` }))
    await cluster.synced()
    const [victim] = await cluster.primaries()
    await victim.stop()
    const reader = new Ledger({ store: cluster.urls.filter((u) => u !== victim.url), maxBytes: 1, timeoutMs: 3000 })
    // The replica takes over after cluster-node-timeout (1 s) and a vote.
    const end = Date.now() + 20000
    let missing = handles.length
    while (missing > 0 && Date.now() < end) {
      missing = 0
      for (const [i, h] of handles.entries()) {
        if ((await reader.fetch(h.memId, { namespace: `fail-${i}`, jsonPath: 'i' })) !== String(i)) missing++
      }
      if (missing > 0) await new Promise((r) => setTimeout(r, 250))
    }
    expect(missing).toBe(0)
    for (let i = 0; i < 40; i++) await l.record({ toolCallId: `g${i}`, toolName: 't', content: content(100 + i), namespace: `fail-${i}` })
    await Promise.all([l.close(), reader.close()])
  }, 40000)
})
