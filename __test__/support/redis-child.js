'use strict'
// A child process for __test__/store-redis.test.js: another replica on the
// same Redis. Usage: node redis-child.js <mode> <url> <file>
//   record <url> <file>  record the items in <file> ([{ name, content, namespace, reads }]),
//                        print, as JSON, each one's handle and its answers to `reads`
//   read <url> <file>    print, as JSON, each id's handle, stub and answers

const fs = require('node:fs')
const { Ledger, recall } = require('../..')

const [mode, url, file] = process.argv.slice(2)
const out = (s) => fs.writeSync(1, s + '\n')

async function main() {
  const ledger = new Ledger({ store: url, previewChars: 120 })
  const items = JSON.parse(fs.readFileSync(file, 'utf8'))
  const answers = []
  if (mode === 'record') {
    for (const { name, content, namespace, reads } of items) {
      const handle = await ledger.record({ toolCallId: `call-${name}`, toolName: name, toolArgs: { page: 1 }, content, namespace })
      const a = { memId: handle.memId, namespace, handle, reads: [] }
      for (const r of reads) a.reads.push(await recall(ledger, handle.memId, { ...r, namespace }))
      answers.push(a)
    }
  } else {
    for (const { memId, namespace, reads } of items) {
      const a = { memId, handle: await ledger.handle(memId, { namespace }), stub: await ledger.stub(memId, { namespace }), reads: [] }
      for (const r of reads) a.reads.push(await recall(ledger, memId, { ...r, namespace }))
      answers.push(a)
    }
  }
  out(JSON.stringify({ answers, stats: ledger.stats() }))
}

main().catch((e) => {
  out(`error ${e.code} ${e.message}`)
  process.exit(1)
})
