'use strict'
// A child process for __test__/store-eviction.test.js: the warnings this
// package emits (process 'warning', type SymfonicWarning) reach the main
// realm's process, which jest's sandbox does not listen on; here they do.
// Usage: node warn-child.js <url> <mode>; prints { steps: [[warnings], ...] }
//   open  open a ledger, then a second one
//   ttl   open and record without ttlSeconds, then record with it

const fs = require('node:fs')
const { Ledger } = require('../..')

const [url, mode] = process.argv.slice(2)
let seen = []
process.on('warning', (w) => w.name === 'SymfonicWarning' && seen.push(w.message))
const step = async (f) => {
  await f()
  await new Promise((r) => setImmediate(r))
  const out = seen
  seen = []
  return out
}

async function main() {
  const steps = []
  const ledgers = []
  const open = async () => ledgers.push(await Ledger.open({ store: url }))
  if (mode === 'open') {
    steps.push(await step(open))
    steps.push(await step(open))
  } else if (mode === 'ttl') {
    steps.push(await step(async () => {
      await open()
      await ledgers[0].record({ toolCallId: 'a', toolName: 't', content: 'kept: no expiry' })
    }))
    steps.push(await step(() => ledgers[0].record({ toolCallId: 'b', toolName: 't', content: 'expires', ttlSeconds: 60 })))
    steps.push(await step(() => ledgers[0].record({ toolCallId: 'c', toolName: 't', content: 'expires too', ttlSeconds: 60 })))
  }
  await Promise.all(ledgers.map((l) => l.close()))
  fs.writeSync(1, JSON.stringify({ steps }) + '\n')
}

main().catch((e) => {
  fs.writeSync(1, `error ${e.code} ${e.message}\n`)
  process.exit(1)
})
