'use strict'
const { performance } = require('node:perf_hooks')
// Small helpers shared by the benchmark suites.

function median(xs) {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

function fmtMs(ms) {
  if (ms < 0.01) return `${(ms * 1000).toFixed(2)} µs`
  if (ms < 1) return `${(ms * 1000).toFixed(1)} µs`
  return `${ms.toFixed(2)} ms`
}

// A markdown table.
function table(head, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n')
}

// Median wall time of `runs` awaited calls of `fn(i)`, in ms.
async function timed(runs, fn) {
  const xs = []
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now()
    await fn(i)
    xs.push(performance.now() - t0)
  }
  return median(xs)
}

module.exports = { median, fmtMs, table, timed }
