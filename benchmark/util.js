'use strict'
const fs = require('node:fs')
const path = require('node:path')
const { performance } = require('node:perf_hooks')
// Small helpers shared by the benchmark suites.

// A figure the docs quote: under `npm run bench -- --write-figures`, bench.js
// names a file in SYMFONIC_FIGURES and merges what the suites write there into
// benchmark/figures.json (scripts/figures.js fills the docs from it).
function figure(key, value) {
  const file = process.env.SYMFONIC_FIGURES
  if (file) fs.appendFileSync(file, JSON.stringify({ key, value, suite: path.basename(require.main.filename, '.js') }) + '\n')
  return value
}

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

module.exports = { median, fmtMs, table, timed, figure }
