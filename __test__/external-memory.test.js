'use strict'
// needs: cargo
// What a ledger tells V8 about the native memory it holds, so that V8 weighs
// a ledger by its payloads when it decides to collect: each call that
// changes it reports the change when it settles (a sync call, when it
// returns). Read through a test hook that returns V8's own count, in the
// test build (support/hooks.js).
// Each case runs in a fresh process, where no other test's ledger can be
// collected (and so uncounted) in the middle of it.

const { spawnSync } = require('node:child_process')
const hooks = require('./support/hooks.js')

const MB = 2 ** 20

/** Runs `scenario` in a fresh Node process and returns what it resolves to. */
function inChild(scenario) {
  const code = `
    const { Ledger } = require(${JSON.stringify(require.resolve('..'))})
    const binding = require(${JSON.stringify(require.resolve('../lib/native.js'))})
    const tools = {
      native: ${JSON.stringify(require.resolve('../lib/native.js'))},
      entry: ${JSON.stringify(require.resolve('..'))},
      Ledger,
      MB: ${MB},
      counted: () => binding.__externalMemoryForTest(),
      payload: (tag, units = 3 * ${MB}) => tag + ':' + 'é'.repeat(units),
    }
    ;(${scenario})(tools).then((out) => process.stdout.write(JSON.stringify(out)))`
  const r = spawnSync(process.execPath, ['--expose-gc', '-e', code], { encoding: 'utf8', env: hooks.env })
  if (r.status !== 0) throw new Error(r.stderr)
  return JSON.parse(r.stdout)
}

test('records are counted when they settle, removals when theirs do, and close releases the rest', () => {
  const r = inChild(async ({ Ledger, counted, payload }) => {
    const l = new Ledger()
    const before = counted()
    await Promise.all(['a', 'b', 'c'].map((t) => l.record({ toolCallId: t, toolName: 't', content: payload(t) })))
    const recorded = { grew: counted() - before, held: l.stats().bytes }
    l.recordSync({ toolCallId: 'd', toolName: 't', content: payload('d') })
    const synced = { grew: counted() - before, held: l.stats().bytes }
    await l.delete((await l.record({ toolCallId: 'a', toolName: 't', content: payload('a') })).memId)
    const deleted = { grew: counted() - before, held: l.stats().bytes }
    await l.close()
    return { recorded, synced, deleted, closed: counted() - before }
  })
  expect(r.recorded.held).toBeGreaterThan(18 * MB)
  expect(r.recorded.grew).toBe(r.recorded.held)
  expect(r.synced.grew).toBe(r.synced.held)
  expect(r.deleted.held).toBeLessThan(r.synced.held)
  expect(r.deleted.grew).toBe(r.deleted.held)
  expect(r.closed).toBe(0)
})

test('a collected ledger is no longer counted', () => {
  const r = inChild(async ({ Ledger, counted, payload }) => {
    const before = counted()
    let l = new Ledger()
    await l.record({ toolCallId: 'a', toolName: 't', content: payload('a') })
    await l.record({ toolCallId: 'b', toolName: 't', content: payload('b') })
    const held = l.stats().bytes
    const grew = counted() - before
    l = null
    // Finalizers may run after the collection, on a later turn.
    for (let i = 0; i < 20 && counted() !== before; i++) {
      global.gc()
      await new Promise((r) => setTimeout(r, 10))
    }
    return { held, grew, after: counted() - before }
  })
  expect(r.held).toBeGreaterThan(12 * MB)
  expect(r.grew).toBe(r.held)
  expect(r.after).toBe(0)
})

test('a worker thread counts its own ledger', () => {
  const r = inChild(async ({ entry, native }) => {
    const { Worker } = require('node:worker_threads')
    const worker = new Worker(
      `
      const { parentPort } = require('node:worker_threads')
      const { Ledger } = require(${JSON.stringify(entry)})
      const binding = require(${JSON.stringify(native)})
      ;(async () => {
        const l = new Ledger()
        const before = binding.__externalMemoryForTest()
        await l.record({ toolCallId: 'w', toolName: 't', content: 'w:' + 'é'.repeat(3 * 2 ** 20) })
        parentPort.postMessage({ grew: binding.__externalMemoryForTest() - before, held: l.stats().bytes })
      })()`,
      { eval: true },
    )
    const out = await new Promise((resolve, reject) => worker.once('message', resolve).once('error', reject))
    await worker.terminate()
    return out
  })
  expect(r.held).toBeGreaterThan(6 * MB)
  expect(r.grew).toBe(r.held)
})
