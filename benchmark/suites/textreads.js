'use strict'
// Text reads against the plain-JS way of producing the same answer, in one
// run: a `pattern` recall (grep -n style: every matching line counted, the
// lines shown up to the 50,000-char cap, context lines, `--` between groups)
// against a JS RegExp loop over the lines building that answer, and a `lines`
// read against split + slice + join. On the bench's generated 5 MB service log
// (also with non-ASCII words) and, where /work/shared is present, the loghub
// logs repeated to 5 MB.
// Target: every pattern recall at least as fast as the JS loop (ratio ≥ 1×).
// Run: npm run bench -- textreads   (the release build: npm run build)

const { performance } = require('node:perf_hooks')
const { Ledger, recall, MAX_OUTPUT_CHARS } = require('../..')
const { log, loghub } = require('../logs.js')
const { median, fmtMs, table } = require('../util.js')

const N = 31

// The answer's lines the JS way: test every line (its `\r` aside), count the
// matches, then write matching lines and their context up to the cap.
function jsGrep(text, re, context, max = MAX_OUTPUT_CHARS) {
  const lines = text.split('\n')
  if (text.endsWith('\n')) lines.pop()
  const hits = []
  for (let i = 0; i < lines.length; i++) {
    let l = lines[i]
    if (l.endsWith('\r')) l = l.slice(0, -1)
    if (re.test(l)) hits.push(i)
  }
  const isHit = new Set(hits)
  const out = []
  let used = 0
  let last = -1
  let full = false
  for (const h of hits) {
    for (let j = Math.max(h - context, last + 1); j <= Math.min(h + context, lines.length - 1) && !full; j++) {
      let l = lines[j]
      if (l.endsWith('\r')) l = l.slice(0, -1)
      const row = `${context > 0 && last >= 0 && j > last + 1 ? '--\n' : ''}${j + 1}${isHit.has(j) ? ':' : '-'}${l}`
      if (used + row.length + 1 > max - 250) full = true
      else {
        out.push(row)
        used += row.length + 1
        last = j
      }
    }
    if (full) break
  }
  return { total: hits.length, body: out.join('\n') }
}

// The lines numbered `N:text`, as recall answers a range.
function jsLines(text, first, last) {
  return text
    .split('\n')
    .slice(first - 1, last)
    .map((l, i) => `${first + i}:${l.replace(/\r$/, '')}`)
    .join('\n')
}

async function main() {
  const generated = log()
  // The same log with non-ASCII words: Unicode classes and case folding apply.
  const payloads = [
    ['generated service log', generated],
    ['generated log, non-ASCII', generated.replaceAll('handled', 'traité')],
  ]
  const real = loghub()
  if (real !== null) payloads.push(['loghub HDFS+Apache+Linux+Spark', real])
  const cases = [
    ['rare literal', 'E1234', '', 0],
    ['level word', '\\bWARN\\b', '', 0],
    ['class and repeats', 'request \\d+7 in 8\\d\\dms', '', 0],
    ['case-insensitive alternation', 'error|timeout|exception', 'i', 0],
    ['with 2 lines of context', 'WARN|ERROR', '', 2],
  ]
  const rows = []
  const ledger = new Ledger()
  for (const [name, text] of payloads) {
    const h = await ledger.record({ toolCallId: name, toolName: 'log', content: text })
    for (const [label, pattern, flags, context] of cases) {
      const re = new RegExp(pattern, flags)
      const opts = { pattern, ignoreCase: flags === 'i', context }
      // Same answer: the same count, and the same lines up to where either cap falls.
      const ours = await recall(ledger, h.memId, opts)
      const js = jsGrep(text, re, context)
      const count = Number((/^\[recall: (\d+) matching line/.exec(ours) || [0, 0])[1])
      const body = ours.slice(ours.indexOf(']\n') + 2)
      if (count !== js.total || (count > 0 && !js.body.startsWith(body) && !body.startsWith(js.body))) throw new Error(`${name} / ${label}: answers differ (${count} vs ${js.total})`)
      const a = []
      const b = []
      for (let i = 0; i < N; i++) {
        let t0 = performance.now()
        await recall(ledger, h.memId, opts)
        a.push(performance.now() - t0)
        t0 = performance.now()
        jsGrep(text, re, context)
        b.push(performance.now() - t0)
      }
      const [x, y] = [median(a), median(b)]
      rows.push([`${name}: pattern ${label} (${js.total} lines)`, fmtMs(x), fmtMs(y), `${(y / x).toFixed(2)}×`, '≥ 1×'])
    }
    const lines = text.split('\n').length
    const [first, last] = [Math.floor(lines * 0.8), Math.floor(lines * 0.8) + 100]
    const want = jsLines(text, first, last)
    const got = await recall(ledger, h.memId, { lines: `${first}-${last}` })
    if (got !== want) throw new Error(`${name}: lines answers differ`)
    const a = []
    const b = []
    for (let i = 0; i < N; i++) {
      let t0 = performance.now()
      await recall(ledger, h.memId, { lines: `${first}-${last}` })
      a.push(performance.now() - t0)
      t0 = performance.now()
      jsLines(text, first, last)
      b.push(performance.now() - t0)
    }
    rows.push([`${name}: lines ${first}-${last}`, fmtMs(median(a)), fmtMs(median(b)), `${(median(b) / median(a)).toFixed(2)}×`, ''])
  }
  const mb = (s) => (Buffer.byteLength(s) / 1e6).toFixed(1)
  console.log(`## Text reads (${payloads.map(([n, t]) => `${n} ${mb(t)} MB`).join('; ')}; median of ${N})\n`)
  console.log(table(['recall', '@symfonic/core', 'JS RegExp loop', 'speed-up', 'target'], rows))
  console.log()
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
