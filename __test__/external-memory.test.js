'use strict'
// Issue 11: what a ledger tells V8 about the native memory it holds. Growth
// while async records are in flight (on this thread, any ledger) reaches V8
// when the last one settles, or once it reaches the cap; decreases at once.
// Read through an internal hook that returns V8's own external-memory count.
// Each case runs in a fresh process, where no other test's ledger can be
// collected (and so uncounted) in the middle of it.

const { spawnSync } = require('node:child_process')

const MB = 2 ** 20

/** Runs `scenario` in a fresh Node process and returns what it resolves to. */
function inChild(scenario, flags = []) {
  const code = `
    const { Ledger } = require(${JSON.stringify(require.resolve('..'))})
    const binding = require(${JSON.stringify(require.resolve('../lib/native.js'))})
    const MB = ${MB}
    const tools = {
      entry: ${JSON.stringify(require.resolve('..'))},
      native: ${JSON.stringify(require.resolve('../lib/native.js'))},
      Ledger,
      binding,
      MB,
      counted: () => binding.__externalMemoryForTest(),
      // Distinct payloads of a few MB; the default is past a crossing slice (256 Ki units).
      payload: (tag, units = 3 * MB) => tag + ':' + 'é'.repeat(units),
    }
    ;(${scenario})(tools).then((out) => process.stdout.write(JSON.stringify(out)))`
  const r = spawnSync(process.execPath, [...flags, '-e', code], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(r.stderr)
  return JSON.parse(r.stdout)
}

test('the JS entry sets the cap: an eighth of the heap limit, at most 256 MiB', () => {
  const r = inChild(async ({ binding }) => ({
    cap: binding.__deferExternalUpTo(0),
    limit: require('node:v8').getHeapStatistics().heap_size_limit,
  }))
  expect(r.cap).toBe(Math.min(256 * MB, Math.floor(r.limit / 8)))
})

test('with nothing else in flight, a record is counted by V8 once it settles', () => {
  const r = inChild(async ({ Ledger, counted, payload }) => {
    const l = new Ledger()
    const before = counted()
    await l.record({ toolCallId: 'a', toolName: 't', content: payload('a') })
    const grew = counted() - before
    const held = l.stats().bytes
    l.clear()
    return { grew, held, afterClear: counted() - before }
  })
  expect(r.held).toBeGreaterThan(6 * MB)
  expect(r.grew).toBe(r.held)
  expect(r.afterClear).toBe(0)
})

test('growth while another record is in flight is counted when that one settles', () => {
  const r = inChild(async ({ Ledger, binding, counted, payload, MB }) => {
    const l = new Ledger()
    const before = counted()
    binding.__recordBegins() // stands for a record still in flight
    await l.record({ toolCallId: 'a', toolName: 't', content: payload('a') })
    l.recordSync({ toolCallId: 'b', toolName: 't', content: payload('b', MB) })
    const during = counted() - before
    binding.__recordSettles()
    return { during, after: counted() - before, held: l.stats().bytes }
  })
  expect(r.held).toBeGreaterThan(8 * MB)
  expect(r.during).toBe(0)
  expect(r.after).toBe(r.held)
})

test('concurrent records, long and short, are counted in full once all have settled', () => {
  const r = inChild(async ({ Ledger, counted, payload, MB }) => {
    const l = new Ledger()
    const before = counted()
    const done = []
    for (let i = 0; i < 6; i++) {
      done.push(l.record({ toolCallId: `c${i}`, toolName: 't', content: payload(`c${i}`, i % 2 ? 1000 : 2 * MB) }))
    }
    const ids = new Set((await Promise.all(done)).map((h) => h.memId))
    return { ids: ids.size, grew: counted() - before, held: l.stats().bytes }
  })
  expect(r.ids).toBe(6)
  expect(r.held).toBeGreaterThan(12 * MB)
  expect(r.grew).toBe(r.held)
})

test('a decrease is counted at once, even during a burst', () => {
  const r = inChild(async ({ Ledger, binding, counted, payload }) => {
    const l = new Ledger()
    const before = counted()
    const h = await l.record({ toolCallId: 'a', toolName: 't', content: payload('a') })
    const grew = counted() - before
    const held = l.stats().bytes
    binding.__recordBegins()
    const deleted = l.delete(h.memId)
    const during = counted() - before
    binding.__recordSettles()
    return { grew, held, deleted, during, after: counted() - before }
  })
  expect(r.grew).toBe(r.held)
  expect(r.deleted).toBe(true)
  expect(r.during).toBe(0)
  expect(r.after).toBe(0)
})

test('growth that reaches the cap is counted mid-burst', () => {
  const r = inChild(async ({ Ledger, binding, counted, payload, MB }) => {
    binding.__deferExternalUpTo(5 * MB)
    const l = new Ledger()
    const before = counted()
    const seen = []
    binding.__recordBegins()
    for (const tag of ['a', 'b', 'c']) {
      // ~2 MiB each: two stay under 5 MiB, the third reaches it.
      l.recordSync({ toolCallId: tag, toolName: 't', content: payload(tag, MB) })
      seen.push({ counted: counted() - before, held: l.stats().bytes })
    }
    l.recordSync({ toolCallId: 'd', toolName: 't', content: payload('d', MB) })
    const afterD = counted() - before
    binding.__recordSettles()
    return { seen, afterD, after: counted() - before, held: l.stats().bytes }
  })
  expect(r.seen.map((s) => s.counted)).toEqual([0, 0, r.seen[2].held])
  expect(r.seen[2].held).toBeGreaterThan(5 * MB)
  expect(r.afterD).toBe(r.seen[2].held)
  expect(r.after).toBe(r.held)
})

test('a rejected record settles its turn: what follows is counted at once', () => {
  const r = inChild(async ({ Ledger, counted, payload, MB }) => {
    const l = new Ledger()
    const taken = await l.record({ toolCallId: 'b', toolName: 't', content: 'b' })
    l.__forceMemIdForTest(taken.memId)
    const code = await l.record({ toolCallId: 'c', toolName: 't', content: payload('c', 2 * MB) }).catch((e) => e.code)
    l.__forceMemIdForTest(null)
    const before = counted()
    const held = l.stats().bytes
    l.recordSync({ toolCallId: 'd', toolName: 't', content: payload('d', MB) })
    return { code, grew: counted() - before, added: l.stats().bytes - held }
  })
  expect(r.code).toBe('ERR_SYMFONIC_MEM_ID_COLLISION')
  expect(r.added).toBeGreaterThan(2 * MB)
  expect(r.grew).toBe(r.added)
})

test('a collected ledger is no longer counted', () => {
  const r = inChild(
    async ({ Ledger, counted, payload }) => {
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
    },
    ['--expose-gc'],
  )
  expect(r.held).toBeGreaterThan(12 * MB)
  expect(r.grew).toBe(r.held)
  expect(r.after).toBe(0)
})

test('each JS thread has its own burst: a worker is counted at once while the main thread holds one open', () => {
  const r = inChild(async ({ binding, entry, native }) => {
    const { Worker } = require('node:worker_threads')
    binding.__recordBegins() // the main thread's burst stays open throughout
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
