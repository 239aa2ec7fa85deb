'use strict'
// A child process for __test__/crossing.test.js: a 512 MiB Buffer is being
// read off the JS thread when the thread that owns it ends. `worker`: a
// worker thread recording it is terminated. `exit`: a record times out and
// the process exits while its abandoned work still reads the Buffer. Prints
// `ended` and exits 0 unless the process crashed.
// Usage: node teardown-child.js worker|exit <dir>

const { Worker, isMainThread, workerData } = require('node:worker_threads')
const path = require('node:path')
const { Ledger } = require('../..')

const big = () => Buffer.alloc(2 ** 29, '2026-01-01 INFO a line of a log\n')

async function main(mode, dir) {
  if (mode === 'worker') {
    const w = new Worker(__filename, { workerData: 'record' })
    await new Promise((resolve) => w.once('message', resolve))
    await new Promise((resolve) => setTimeout(resolve, 20))
    await w.terminate()
  } else {
    // The 50 ms bound is for the record; on a loaded machine the store's open
    // can take longer, so the open is tried again until one makes it.
    let ledger
    for (let i = 0; ledger === undefined; i++) {
      ledger = await Ledger.open({ store: `sqlite:${path.join(dir, 'exit.db')}`, timeoutMs: 50 }).catch((e) => {
        if (e?.code !== 'ERR_SYMFONIC_STORE_TIMEOUT' || i >= 50) throw e
      })
    }
    const err = await ledger.record({ toolCallId: 'big', toolName: 't', content: big() }).catch((e) => e)
    if (err?.code !== 'ERR_SYMFONIC_STORE_TIMEOUT') throw new Error(`expected a timeout, got ${err}`)
  }
  console.log('ended')
}

if (isMainThread) {
  main(process.argv[2], process.argv[3]).catch((e) => {
    console.error(e)
    process.exit(1)
  })
} else {
  new Ledger().record({ toolCallId: 'big', toolName: 't', content: big() })
  require('node:worker_threads').parentPort.postMessage(workerData)
}
