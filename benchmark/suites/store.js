'use strict'
// The stores (SQLite, and Redis on a local redis-server this suite starts on
// 127.0.0.1 and stops): record a 5 MB JSON catalog (write-through: compressed,
// committed and fsynced before the promise resolves), and a cold recall of a
// json path (a fresh Ledger on the same file: memory miss, store hit, the
// entry re-indexed), next to one JSON.parse of the payload, in one run.
// Target: a cold recall within 2x of one JSON.parse; a warm one as in memory.
// Run: npm run bench -- store

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const net = require('node:net')
const { spawn } = require('node:child_process')
const { Ledger } = require('../..')
const { fmtMs, table, timed, figure } = require('../util.js')

function catalog() {
  const rows = []
  let size = 0
  for (let i = 0; size < 5 * 1024 * 1024; i++) {
    const row = { asin: `B0${(1e8 + i * 7919).toString(36).toUpperCase()}`, title: `Stainless steel widget, model ${i}`, price: ((i * 37) % 500) + 0.99, bsr: (i * 104729) % 1_000_000 }
    rows.push(row)
    size += JSON.stringify(row).length + 1
  }
  return JSON.stringify({ meta: { count: rows.length }, rows })
}


function freePort() {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address()
      srv.close(() => resolve(port))
    })
  })
}

// A redis-server without persistence on a free port; resolves once it answers.
async function startRedis() {
  const port = await freePort()
  const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' })
  const up = () =>
    new Promise((resolve) => {
      const sock = net.connect({ host: '127.0.0.1', port }, () => sock.write('PING\r\n'))
      sock.on('data', (d) => {
        sock.destroy()
        resolve(String(d).startsWith('+PONG'))
      })
      sock.on('error', () => resolve(false))
    })
  for (let i = 0; i < 200 && !(await up()); i++) await new Promise((r) => setTimeout(r, 10))
  return { url: `redis://127.0.0.1:${port}/0`, stop: () => new Promise((r) => (proc.kill('SIGTERM'), proc.once('exit', r))) }
}

async function storeRows(label, store, text, parse) {
  const stored = new Ledger({ store })
  const ids = []
  const record = await timed(9, async (i) => ids.push((await stored.record({ toolCallId: `${label}${i}`, toolName: 't', content: text })).memId))
  const cold = await timed(9, (i) => new Ledger({ store }).fetch(ids[i], { jsonPath: 'rows[-1].price' }))
  const warm = await timed(9, (i) => stored.fetch(ids[i], { jsonPath: 'rows[-1].price' }))
  const ratio = (x) => `${(x / parse).toFixed(2)}x`
  const key = label.toLowerCase()
  figure(`store.${key}_record`, fmtMs(record))
  figure(`store.${key}_cold_recall`, fmtMs(cold))
  figure(`store.${key}_warm_recall`, fmtMs(warm))
  return {
    cold,
    rows: [
      [`record to ${label} (compressed, ${label === 'SQLite' ? 'committed, fsynced' : 'applied by the server'})`, fmtMs(record), ratio(record)],
      [`${label}: cold recall of a json path (memory miss, store hit, re-index)`, fmtMs(cold), ratio(cold)],
      [`${label}: warm recall of a json path`, fmtMs(warm), ratio(warm)],
    ],
  }
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'symfonic-store-bench-'))
  try {
    const text = catalog()
    const file = `sqlite:${path.join(dir, 'bench.db')}`
    const parse = await timed(9, () => JSON.parse(text))
    const memory = new Ledger()
    const inMemory = await timed(9, (i) => memory.record({ toolCallId: `m${i}`, toolName: 't', content: text }))
    const sqlite = await storeRows('SQLite', file, text, parse)
    const redis = await startRedis()
    let red
    try {
      red = await storeRows('Redis', redis.url, text, parse)
    } finally {
      await redis.stop()
    }
    const bytes = fs.statSync(path.join(dir, 'bench.db')).size + (fs.existsSync(path.join(dir, 'bench.db-wal')) ? fs.statSync(path.join(dir, 'bench.db-wal')).size : 0)
    const ratio = (x) => `${(x / parse).toFixed(2)}x`
    console.log(`## Stores (${(text.length / 1e6).toFixed(1)} MB JSON catalog; Redis on 127.0.0.1)\n`)
    console.log(
      figure(
        'store.table',
        table(
          ['operation', 'median', 'vs one JSON.parse'],
          [['JSON.parse of the payload (baseline)', fmtMs(parse), '1.00x'], ['record, memory only', fmtMs(inMemory), ratio(inMemory)], ...sqlite.rows, ...red.rows],
        ),
      ),
    )
    const cold = Math.max(sqlite.cold, red.cold)
    console.log(`\nOn disk: ${(bytes / 1e6).toFixed(2)} MB for 9 copies of the ${(text.length / 1e6).toFixed(1)} MB payload (zstd).`)
    console.log(`Target (a cold recall within 2x of one JSON.parse, both stores): ${cold <= 2 * parse ? 'met' : 'NOT met'} (worst ${ratio(cold)}).\n`)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
