'use strict'
// The Ledger against the plain-JavaScript way of doing the same job, on a
// generated 5 MB JSON catalog and a 5 MB text log, in one run.
// Run: npm run bench -- ledger   (the release build: npm run build)

const { Ledger } = require('../..')
const { median, fmtMs, table } = require('../util.js')

const TARGET = 5 * 1024 * 1024

function catalog() {
  const rows = []
  let size = 0
  for (let i = 0; size < TARGET; i++) {
    const row = {
      asin: `B0${(1e8 + i * 7919).toString(36).toUpperCase()}`,
      title: `Stainless steel widget, model ${i}, pack of ${(i % 12) + 1}`,
      price: Math.round((5 + ((i * 37) % 500) + (i % 100) / 100) * 100) / 100,
      bsr: (i * 104729) % 1_000_000,
      category: ['Home', 'Garden', 'Tools', 'Kitchen', 'Sports'][i % 5],
      tags: ['steel', i % 2 ? 'sale' : 'new', `batch-${i % 17}`],
      inStock: i % 3 !== 0,
    }
    rows.push(row)
    size += JSON.stringify(row).length + 1
  }
  return JSON.stringify({ meta: { source: 'bench', count: rows.length, page: 1 }, rows })
}

function log() {
  const lines = []
  let size = 0
  for (let i = 0; size < TARGET; i++) {
    const level = i % 97 === 0 ? 'WARN' : 'INFO'
    const line = `2026-11-30T12:${String(i % 60).padStart(2, '0')}:00Z ${level} worker-${i % 8} handled request ${i} in ${(i * 31) % 900}ms`
    lines.push(line)
    size += line.length + 1
  }
  // A rare needle near the end, as in a real incident search.
  lines.splice(lines.length - 500, 0, 'ERROR worker-3 code=E1234 upstream timeout after 30000ms')
  return lines.join('\n')
}

// The JS way of a query recall: indexOf windows, 400 chars either side, at most 5, counting all.
function jsWindows(text, q) {
  const out = []
  let total = 0
  for (let i = text.indexOf(q); i !== -1; i = text.indexOf(q, i + q.length)) {
    total++
    if (out.length < 5) {
      const a = Math.max(0, i - 400)
      const b = Math.min(text.length, i + q.length + 400)
      out.push((a > 0 ? '...' : '') + text.slice(a, b) + (b < text.length ? '...' : ''))
    }
  }
  return (total > 5 ? `[${total} matches]\n` : '') + out.join('\n---\n')
}

// `after` runs between samples, untimed (e.g. freeing what the sample made,
// as JSON.parse's garbage is not timed either).
async function timeAsync(fn, n, after = () => {}) {
  const xs = []
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint()
    await fn(i)
    xs.push(Number(process.hrtime.bigint() - t) / 1e6)
    after()
  }
  return median(xs)
}

function timeSync(fn, n) {
  const xs = []
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint()
    fn(i)
    xs.push(Number(process.hrtime.bigint() - t) / 1e6)
  }
  return median(xs)
}

async function main() {
  const json = catalog()
  const text = log()
  const mb = (s) => (Buffer.byteLength(s) / 1e6).toFixed(1)
  const rows = []
  const N = 41

  // record: every iteration a new call id, so every one does the full work
  // (a repeat of the same call id and content is an idempotent lookup).
  const ledger = new Ledger()
  await timeAsync((i) => ledger.record({ toolCallId: `warm${i}`, toolName: 'catalog', content: json }), 3)
  ledger.clear()
  const clear = () => ledger.clear()
  const recordMs = await timeAsync(
    (i) => ledger.record({ toolCallId: `c${i}`, toolName: 'catalog', toolArgs: { page: 1 }, content: json }),
    N,
    clear,
  )
  const recordSyncMs = timeSync((i) => {
    ledger.recordSync({ toolCallId: `s${i}`, toolName: 'catalog', toolArgs: { page: 1 }, content: json })
    ledger.clear()
  }, N)
  const parseMs = timeSync(() => JSON.parse(json), N)
  rows.push(['record 5 MB JSON (async, boundary incl.)', fmtMs(recordMs), 'JSON.parse', fmtMs(parseMs), parseMs / recordMs, '≥ 3×'])
  rows.push(['recordSync 5 MB JSON (boundary incl.)', fmtMs(recordSyncMs), 'JSON.parse', fmtMs(parseMs), parseMs / recordSyncMs, ''])

  const recordTextMs = await timeAsync((i) => ledger.record({ toolCallId: `t${i}`, toolName: 'logs', content: text }), N, clear)
  rows.push([`record 5 MB text (async)`, fmtMs(recordTextMs), 'JSON.parse of the catalog', fmtMs(parseMs), parseMs / recordTextMs, ''])

  const hj = await ledger.record({ toolCallId: 'json', toolName: 'catalog', content: json })
  const ht = await ledger.record({ toolCallId: 'text', toolName: 'logs', content: text })

  const path = 'rows[-1]'
  const nativeLast = await ledger.fetch(hj.memId, { jsonPath: path })
  const jsLast = JSON.stringify(JSON.parse(json).rows.at(-1))
  if (JSON.stringify(JSON.parse(nativeLast)) !== jsLast) throw new Error('jsonPath answers differ')
  const pathMs = await timeAsync(() => ledger.fetch(hj.memId, { jsonPath: path }), 200)
  const pathSyncMs = timeSync(() => ledger.fetchSync(hj.memId, { jsonPath: path }), 200)
  const jsPathMs = timeSync(() => JSON.stringify(JSON.parse(json).rows.at(-1)), N)
  rows.push([`fetch jsonPath '${path}' (async)`, fmtMs(pathMs), 'JSON.parse + walk + stringify', fmtMs(jsPathMs), jsPathMs / pathMs, '≥ 20×'])
  rows.push([`fetchSync jsonPath '${path}'`, fmtMs(pathSyncMs), 'JSON.parse + walk + stringify', fmtMs(jsPathMs), jsPathMs / pathSyncMs, ''])

  const q = 'code=E1234'
  const nativeWin = await ledger.fetch(ht.memId, { query: q })
  if (nativeWin !== jsWindows(text, q)) throw new Error('query answers differ')
  const queryMs = await timeAsync(() => ledger.fetch(ht.memId, { query: q }), 50)
  const querySyncMs = timeSync(() => ledger.fetchSync(ht.memId, { query: q }), 50)
  const jsQueryMs = timeSync(() => jsWindows(text, q), 50)
  rows.push([`fetch query '${q}' on the log (async)`, fmtMs(queryMs), 'indexOf window loop', fmtMs(jsQueryMs), jsQueryMs / queryMs, '≥ 1×'])
  rows.push([`fetchSync query '${q}'`, fmtMs(querySyncMs), 'indexOf window loop', fmtMs(jsQueryMs), jsQueryMs / querySyncMs, ''])
  // A server answers several recalls at once: off the JS thread they overlap,
  // while the JS loops queue up on the one thread (8 in flight, per batch).
  const batchMs = await timeAsync(() => Promise.all(Array.from({ length: 8 }, () => ledger.fetch(ht.memId, { query: q }))), 30)
  const jsBatchMs = timeSync(() => {
    for (let i = 0; i < 8; i++) jsWindows(text, q)
  }, 30)
  rows.push([`8 concurrent fetch query (async, per batch)`, fmtMs(batchMs), '8 indexOf window loops', fmtMs(jsBatchMs), jsBatchMs / batchMs, ''])

  const jsonBytes = Buffer.byteLength(json)
  const textBytes = Buffer.byteLength(text)
  const memo = new Ledger()
  const a = memo.recordSync({ toolCallId: 'm1', toolName: 'catalog', content: json }) && memo.stats().bytes
  const b = memo.recordSync({ toolCallId: 'm2', toolName: 'logs', content: text }) && memo.stats().bytes - a

  // Resident memory as the OS sees it, for 10 distinct catalogs (payloads are
  // made, recorded and dropped one at a time, so only the ledger keeps them).
  global.gc?.()
  const rss0 = process.memoryUsage().rss
  const many = new Ledger()
  for (let i = 0; i < 10; i++) {
    many.recordSync({ toolCallId: `r${i}`, toolName: 'catalog', content: Buffer.from(json) })
    global.gc?.()
  }
  const rssPerByte = (process.memoryUsage().rss - rss0) / (10 * jsonBytes)

  console.log(`## Ledger (payloads: ${mb(json)} MB JSON catalog of ${JSON.parse(json).rows.length} rows, ${mb(text)} MB text log)\n`)
  console.log(
    table(
      ['operation', '@symfonic/core', 'plain JS', 'JS time', 'speed-up', 'target'],
      rows.map(([op, t, js, jt, ratio, target]) => [op, t, js, jt, `${ratio.toFixed(1)}×`, target]),
    ),
  )
  console.log()
  console.log(
    table(
      ['memory', 'bytes held / payload byte', 'target'],
      [
        ['JSON catalog (ledger.stats().bytes)', (a / jsonBytes).toFixed(3), '≤ 1.3'],
        ['text log (ledger.stats().bytes)', (b / textBytes).toFixed(3), '≤ 1.3'],
        ['10 catalogs, process RSS growth', rssPerByte.toFixed(3), '≤ 1.3'],
      ],
    ),
  )
  console.log()
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
