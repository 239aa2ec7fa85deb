'use strict'
// A child process for __test__/bounds.test.js: two 300 MB Buffer records
// that time out (timeoutMs 300) on a healthy SQLite file, then 100 KB
// records (each needs a CPU slot) right after, measured in a process of its
// own so RSS is this scenario's alone. Prints one JSON line: each small
// record's outcome and time, and the RSS growth past the baseline (the Buffers
// alive) 500 ms after the large records timed out.
// Usage: node --expose-gc abandon-child.js <db>

const { performance } = require('node:perf_hooks')
const { Ledger } = require('../..')

const rss = () => {
  global.gc()
  return process.memoryUsage().rss
}

async function main(db) {
  const ledger = await Ledger.open({ store: `sqlite:${db}`, timeoutMs: 300, maxBytes: 8 * 2 ** 30 })
  await ledger.record({ toolCallId: 'warm', toolName: 't', content: 'w'.repeat(100 * 1024) })
  const line = '2026-01-01T00:00:00Z INFO worker=7 request handled in 12ms path=/api/v1/items?page=3\n'
  let big = ['a', 'b'].map((tag) => Buffer.alloc(300 * 2 ** 20, tag + line))
  // With the Buffers: V8 may keep their memory after they are collected.
  const base = rss()
  const settled = await Promise.allSettled(big.map((content, i) => ledger.record({ toolCallId: `big${i}`, toolName: 't', content })))
  const timedOut = performance.now()
  big = null
  const small = []
  for (let i = 0; i < 12; i++) {
    const t = performance.now()
    const r = await ledger.record({ toolCallId: `mid${i}`, toolName: 't', content: 'x'.repeat(100 * 1024) + i }).then(
      () => 'ok',
      (e) => e.code,
    )
    small.push({ r, ms: Math.round(performance.now() - t) })
    if (r === 'ok') break
  }
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, timedOut + Number(process.env.WAIT || 500) - performance.now())))
  const growth = rss() - base
  await ledger.close()
  process.stdout.write(JSON.stringify({ big: settled.map((s) => s.reason && s.reason.code), small, growth }) + '\n')
}

main(process.argv[2]).catch((e) => {
  process.stderr.write(String(e && e.stack) + '\n')
  process.exit(1)
})
