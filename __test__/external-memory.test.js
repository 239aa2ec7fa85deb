'use strict'
// Issue 11: what a ledger tells V8 about the native memory it holds. Growth
// while async records are in flight (on this thread, any ledger) reaches V8
// once a quiet spell after the last one has ended (lib/external.js), or once
// it reaches the cap; decreases at once. Read through an internal hook that
// returns V8's own external-memory count; the spell's end is awaited through
// an internal promise, never a sleep.
// Each case runs in a fresh process, where no other test's ledger can be
// collected (and so uncounted) in the middle of it.

const { spawnSync } = require('node:child_process')

const MB = 2 ** 20

/** Runs `scenario` in a fresh Node process and returns what it resolves to. */
function inChild(scenario, flags = []) {
  const code = `
    const { Ledger } = require(${JSON.stringify(require.resolve('..'))})
    const binding = require(${JSON.stringify(require.resolve('../lib/native.js'))})
    const external = require(${JSON.stringify(require.resolve('../lib/external.js'))})
    const MB = ${MB}
    const tools = {
      entry: ${JSON.stringify(require.resolve('..'))},
      native: ${JSON.stringify(require.resolve('../lib/native.js'))},
      externalJs: ${JSON.stringify(require.resolve('../lib/external.js'))},
      Ledger,
      binding,
      external,
      quiet: () => external.quietSpellEnded(),
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

test('a record is counted by V8 once the quiet spell after it ends, not before', () => {
  const r = inChild(async ({ Ledger, counted, payload, quiet, external }) => {
    const l = new Ledger()
    const before = counted()
    await l.record({ toolCallId: 'a', toolName: 't', content: payload('a') })
    const settled = counted() - before
    // The spell's timer never keeps the process alive.
    const keptAlive = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length
    await quiet()
    const grew = counted() - before
    const held = l.stats().bytes
    await l.clear()
    return { settled, keptAlive, grew, held, afterClear: counted() - before, quietMs: external.QUIET_MS }
  })
  expect(r.held).toBeGreaterThan(6 * MB)
  expect(r.settled).toBe(0)
  expect(r.keptAlive).toBe(0)
  expect(r.grew).toBe(r.held)
  expect(r.afterClear).toBe(0)
  expect(r.quietMs).toBe(200)
})

test('a ledger cleared within the quiet spell is never counted', () => {
  const r = inChild(async ({ Ledger, counted, payload, quiet }) => {
    const l = new Ledger()
    const before = counted()
    const seen = []
    await Promise.all(['a', 'b'].map((t) => l.record({ toolCallId: t, toolName: 't', content: payload(t) })))
    const held = l.stats().bytes
    seen.push(counted() - before)
    await l.clear()
    seen.push(counted() - before)
    await quiet()
    seen.push(counted() - before)
    return { held, seen }
  })
  expect(r.held).toBeGreaterThan(12 * MB)
  expect(r.seen).toEqual([0, 0, 0])
})

test('growth while another record is in flight is counted after the spell that follows the last settle', () => {
  const r = inChild(async ({ Ledger, external, counted, payload, quiet, MB }) => {
    const l = new Ledger()
    const before = counted()
    external.recordBegins() // stands for a record still in flight
    await l.record({ toolCallId: 'a', toolName: 't', content: payload('a') })
    l.recordSync({ toolCallId: 'b', toolName: 't', content: payload('b', MB) })
    const during = counted() - before
    external.recordSettles()
    const settled = counted() - before
    await quiet()
    return { during, settled, after: counted() - before, held: l.stats().bytes }
  })
  expect(r.held).toBeGreaterThan(8 * MB)
  expect(r.during).toBe(0)
  expect(r.settled).toBe(0)
  expect(r.after).toBe(r.held)
})

test('a record that begins within the spell keeps the growth pending until a spell after it ends', () => {
  const r = inChild(async ({ Ledger, external, counted, payload, quiet }) => {
    const l = new Ledger()
    const before = counted()
    await l.record({ toolCallId: 'a', toolName: 't', content: payload('a') })
    const first = l.stats().bytes
    external.recordBegins() // a record starts before the spell ends
    await quiet()
    const whileInFlight = counted() - before
    const b = l.record({ toolCallId: 'b', toolName: 't', content: payload('b') })
    external.recordSettles()
    await b
    const settled = counted() - before
    await quiet()
    return { first, whileInFlight, settled, after: counted() - before, held: l.stats().bytes }
  })
  expect(r.held).toBeGreaterThan(r.first)
  expect(r.whileInFlight).toBe(0)
  expect(r.settled).toBe(0)
  expect(r.after).toBe(r.held)
})

test('concurrent records, long and short, are counted in full once all have settled and the spell ended', () => {
  const r = inChild(async ({ Ledger, counted, payload, quiet, MB }) => {
    const l = new Ledger()
    const before = counted()
    const done = []
    for (let i = 0; i < 6; i++) {
      done.push(l.record({ toolCallId: `c${i}`, toolName: 't', content: payload(`c${i}`, i % 2 ? 1000 : 2 * MB) }))
    }
    const ids = new Set((await Promise.all(done)).map((h) => h.memId))
    const settled = counted() - before
    await quiet()
    return { ids: ids.size, settled, grew: counted() - before, held: l.stats().bytes }
  })
  expect(r.ids).toBe(6)
  expect(r.held).toBeGreaterThan(12 * MB)
  expect(r.settled).toBe(0)
  expect(r.grew).toBe(r.held)
})

test('a decrease is counted at once, even during a burst', () => {
  const r = inChild(async ({ Ledger, external, counted, payload, quiet }) => {
    const l = new Ledger()
    const before = counted()
    const h = await l.record({ toolCallId: 'a', toolName: 't', content: payload('a') })
    await quiet()
    const grew = counted() - before
    const held = l.stats().bytes
    external.recordBegins()
    const deleted = await l.delete(h.memId)
    const during = counted() - before
    external.recordSettles()
    return { grew, held, deleted, during, after: counted() - before }
  })
  expect(r.grew).toBe(r.held)
  expect(r.deleted).toBe(true)
  expect(r.during).toBe(0)
  expect(r.after).toBe(0)
})

test('growth that reaches the cap is counted mid-burst', () => {
  const r = inChild(async ({ Ledger, binding, external, counted, payload, quiet, MB }) => {
    binding.__deferExternalUpTo(5 * MB)
    const l = new Ledger()
    const before = counted()
    const seen = []
    external.recordBegins()
    for (const tag of ['a', 'b', 'c']) {
      // ~2 MiB each: two stay under 5 MiB, the third reaches it.
      l.recordSync({ toolCallId: tag, toolName: 't', content: payload(tag, MB) })
      seen.push({ counted: counted() - before, held: l.stats().bytes })
    }
    l.recordSync({ toolCallId: 'd', toolName: 't', content: payload('d', MB) })
    const afterD = counted() - before
    external.recordSettles()
    await quiet()
    return { seen, afterD, after: counted() - before, held: l.stats().bytes }
  })
  expect(r.seen.map((s) => s.counted)).toEqual([0, 0, r.seen[2].held])
  expect(r.seen[2].held).toBeGreaterThan(5 * MB)
  expect(r.afterD).toBe(r.seen[2].held)
  expect(r.after).toBe(r.held)
})

test('a rejected record settles its turn: after the spell, what follows is counted at once', () => {
  const r = inChild(async ({ Ledger, counted, payload, quiet, MB }) => {
    const l = new Ledger()
    const taken = await l.record({ toolCallId: 'b', toolName: 't', content: 'b' })
    l.__forceMemIdForTest(taken.memId)
    const code = await l.record({ toolCallId: 'c', toolName: 't', content: payload('c', 2 * MB) }).catch((e) => e.code)
    l.__forceMemIdForTest(null)
    await quiet()
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
    async ({ Ledger, counted, payload, quiet }) => {
      const before = counted()
      let l = new Ledger()
      await l.record({ toolCallId: 'a', toolName: 't', content: payload('a') })
      await l.record({ toolCallId: 'b', toolName: 't', content: payload('b') })
      await quiet()
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

test('each JS thread has its own burst: a worker is counted after its own spell while the main thread holds one open', () => {
  const r = inChild(async ({ external, entry, native, externalJs }) => {
    const { Worker } = require('node:worker_threads')
    external.recordBegins() // the main thread's burst stays open throughout
    const worker = new Worker(
      `
      const { parentPort } = require('node:worker_threads')
      const { Ledger } = require(${JSON.stringify(entry)})
      const binding = require(${JSON.stringify(native)})
      const external = require(${JSON.stringify(externalJs)})
      ;(async () => {
        const l = new Ledger()
        const before = binding.__externalMemoryForTest()
        await l.record({ toolCallId: 'w', toolName: 't', content: 'w:' + 'é'.repeat(3 * 2 ** 20) })
        await external.quietSpellEnded()
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
