'use strict'
// A child process for __test__/store-memory.test.js: 10,000 records of 100 KB
// through a ledger of maxBytes 64 MiB over SQLite, measured in a process of
// their own, so RSS is this ledger's alone and not what other test files left
// in a jest worker. Prints one JSON line: the RSS growth, the ledger's stats,
// and whether every 97th id still answered its own head.
// Usage: node --expose-gc store-memory-child.js <db>

const { Ledger } = require('../..')

const N = 10000
const payload = (i) => `record ${i} `.padEnd(100 * 1024, `line of record ${i} with some text. `)

async function main(db) {
  const ledger = new Ledger({ store: `sqlite:${db}`, maxBytes: 64 * 1024 * 1024 })
  const ids = []
  const rssAt = () => {
    global.gc()
    return process.memoryUsage().rss
  }
  // Warm up allocators and the store, then measure growth past that.
  for (let i = 0; i < 200; i++) ids.push((await ledger.record({ toolCallId: `c${i}`, toolName: 't', content: payload(i) })).memId)
  const before = rssAt()
  let peak = before
  for (let i = 200; i < N; i++) {
    ids.push((await ledger.record({ toolCallId: `c${i}`, toolName: 't', content: payload(i) })).memId)
    if (i % 1000 === 0) peak = Math.max(peak, process.memoryUsage().rss)
  }
  peak = Math.max(peak, rssAt())
  const stats = ledger.stats()
  const wrong = []
  for (let i = 0; i < N; i += 97) {
    const head = await ledger.fetch(ids[i], { offset: 0, maxChars: 12 })
    if (head !== payload(i).slice(0, 12)) wrong.push(i)
  }
  const after = ledger.stats()
  await ledger.close()
  process.stdout.write(JSON.stringify({ n: N, growth: peak - before, bytes: stats.bytes, entries: stats.entries, storeHits: after.storeHits, wrong }) + '\n')
}

main(process.argv[2]).catch((e) => {
  console.error(e)
  process.exit(1)
})
