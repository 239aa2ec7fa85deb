'use strict'
// A child process for __test__/store-sqlite.test.js: another process on the
// same SQLite file. Usage: node store-child.js <mode> <db> [arg]
//   loop <db>            record forever; print "ack <memId>" once each record resolved
//   record <db> <n>      record n results, printing "ack <memId>" after each
//   read <db> <idsFile>  print, as JSON, each id's handle, stub and answers
//   collide <db> <memId> record a different result under memId; print the error code
//                        (run over the test build: support/hooks.js env)

const fs = require('node:fs')
const { Ledger, recall } = require('../..')

const [mode, db, arg] = process.argv.slice(2)
const out = (s) => fs.writeSync(1, s + '\n') // unbuffered: printed before the next record starts

function payload(i) {
  if (i % 3 === 0) return JSON.stringify({ rows: Array.from({ length: 50 + (i % 7) * 200 }, (_, k) => ({ id: k, i, name: `row ${k} of ${i}` })) })
  if (i % 3 === 1) return `line ${i}\n`.repeat(100 + (i % 5) * 500)
  return `lossless \uD800 ${i} `.repeat(20)
}

async function main() {
  const ledger = new Ledger({ store: `sqlite:${db}` })
  if (mode === 'loop' || mode === 'record') {
    const n = mode === 'loop' ? Infinity : Number(arg)
    const tag = `${process.pid}-${Date.now()}`
    for (let i = 0; i < n; i++) {
      const h = await ledger.record({ toolCallId: `call-${tag}-${i}`, toolName: 'child', content: payload(i), namespace: 'kill' })
      out(`ack ${h.memId}`)
    }
  } else if (mode === 'read') {
    const items = JSON.parse(fs.readFileSync(arg, 'utf8'))
    const answers = []
    for (const { memId, namespace, reads } of items) {
      const a = { memId, handle: await ledger.handle(memId, { namespace }), stub: await ledger.stub(memId, { namespace }), reads: [] }
      for (const r of reads) a.reads.push(await recall(ledger, memId, { ...r, namespace }))
      answers.push(a)
    }
    out(JSON.stringify({ answers, stats: ledger.stats() }))
  } else if (mode === 'collide') {
    ledger.__forceMemIdForTest(arg)
    try {
      await ledger.record({ toolCallId: 'c', toolName: 't', content: 'a different result' })
      out('recorded')
    } catch (e) {
      out(String(e.code))
    }
  }
}

main().catch((e) => {
  out(`error ${e.code} ${e.message}`)
  process.exit(1)
})
