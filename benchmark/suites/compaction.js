'use strict'
// Per-call cost of compaction: what `toolMemoryMiddleware` adds to every model
// call. A history of 200 messages holding 50 large tool results (a few over
// evictChars) is compacted again and again, as on each model call of a long
// session; then a recorded 145-call coding loop (fixtures/trajectories) is
// compacted call by call, each list extending the last as in an agent. Target:
// a pass with nothing new to record stays under 1 ms and sends nothing across
// the JS/Rust boundary. Run: `npm run bench -- compaction`.

const { performance } = require('node:perf_hooks')
const { Ledger } = require('../..')
const { compactToolMessages } = require('../../langchain/memory.js')
const { AIMessage, HumanMessage, ToolMessage, SystemMessage } = require('@langchain/core/messages')
const fs = require('node:fs')
const path = require('node:path')

const RECORDED = path.join(__dirname, '..', '..', 'fixtures', 'trajectories', 'mswea-gemini3-django__django-16560.json')

// A recorded conversation as LangChain messages (its system prompt goes to the agent, not the list).
function recorded(file) {
  const rec = JSON.parse(fs.readFileSync(file, 'utf8'))
  return rec.messages
    .filter((m) => m.role !== 'system')
    .map((m) =>
      m.role === 'user'
        ? new HumanMessage(m.content)
        : m.role === 'assistant'
          ? new AIMessage({ content: m.content, tool_calls: (m.tool_calls || []).map((c) => ({ ...c, type: 'tool_call' })) })
          : new ToolMessage({ content: m.content, tool_call_id: m.tool_call_id, name: m.name }),
    )
}

// The defaults of the 'breakpoint' cache model (the rewrite rule and the cache marks included).
const OPTIONS = { cacheModel: 'breakpoint' }
const N_RESULTS = 50

function body(i) {
  // Medium JSON results of 10-40 KB; every 10th one is a 150 KB giant.
  const rows = i % 10 === 9 ? 1500 : 100 + ((i * 37) % 300)
  return JSON.stringify({ page: i, rows: Array.from({ length: rows }, (_, r) => ({ id: r, sku: `SKU-${i}-${r}`, price: r / 4, note: 'lorem ipsum' })) })
}

// 200 messages: system, 10 human turns, and per result an AIMessage tool call,
// its ToolMessage and a short AI remark.
function history(bodies) {
  const list = [new SystemMessage('You are a catalog assistant.')]
  for (let i = 0; i < N_RESULTS; i++) {
    if (i % 5 === 0) list.push(new HumanMessage(`turn ${i / 5}: next five pages`))
    list.push(new AIMessage({ content: '', tool_calls: [{ id: `call_${i}`, name: 'get_page', args: { page: i }, type: 'tool_call' }] }))
    list.push(new ToolMessage({ content: bodies[i], tool_call_id: `call_${i}`, name: 'get_page' }))
    list.push(new AIMessage(`read page ${i}`))
  }
  while (list.length < 200) list.push(new AIMessage('...'))
  return list
}

// Counts every call into the native ledger (each one a boundary crossing).
function countingLedger() {
  const ledger = new Ledger()
  const counter = { calls: 0 }
  for (const name of ['record', 'recordSync', 'stub', 'handle', 'fetch', 'fetchSync', 'recall']) {
    if (typeof ledger[name] !== 'function') continue
    const orig = ledger[name].bind(ledger)
    ledger[name] = (...args) => {
      counter.calls++
      return orig(...args)
    }
  }
  return { ledger, counter }
}

async function timeIt(runs, fn) {
  const times = []
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now()
    await fn(i)
    times.push(performance.now() - t0)
  }
  times.sort((a, b) => a - b)
  return { median: times[Math.floor(runs / 2)], p95: times[Math.floor(runs * 0.95)], runs }
}

const ms = (x) => (x < 1 ? `${(x * 1000).toFixed(0)} µs` : `${x.toFixed(2)} ms`)

async function main() {
  const bodies = Array.from({ length: N_RESULTS }, (_, i) => body(i))
  const chars = bodies.reduce((a, b) => a + b.length, 0)
  const rows = []

  // 1. Cold: the first pass records every compacted result (once).
  {
    const list = history(bodies)
    const runs = 20
    let crossings = 0
    const t = await timeIt(runs, async () => {
      const { ledger, counter } = countingLedger()
      await compactToolMessages(list, ledger, OPTIONS)
      crossings = counter.calls
    })
    rows.push(['first pass: records the results (fresh ledger each run)', crossings, t])
  }

  // 2. Steady state: the same history again, as on every later model call.
  const { ledger, counter } = countingLedger()
  const list = history(bodies)
  const first = await compactToolMessages(list, ledger, OPTIONS)
  const stubs = first.filter((m) => m.response_metadata && m.response_metadata.tool_memory).length
  {
    for (let i = 0; i < 200; i++) await compactToolMessages(list, ledger, OPTIONS) // warm the JIT
    const before = counter.calls
    const runs = 2000
    const t = await timeIt(runs, () => compactToolMessages(list, ledger, OPTIONS))
    rows.push(['steady state: nothing new to record', (counter.calls - before) / runs, t])
  }

  // 3. Grown by one exchange: a new small result joins a known history.
  {
    const before = counter.calls
    const runs = 500
    const t = await timeIt(runs, (i) => {
      const grown = list.concat([
        new AIMessage({ content: '', tool_calls: [{ id: `extra_${i}`, name: 'get_page', args: {}, type: 'tool_call' }] }),
        new ToolMessage({ content: 'ok', tool_call_id: `extra_${i}`, name: 'get_page' }),
      ])
      return compactToolMessages(grown, ledger, OPTIONS)
    })
    rows.push(['steady state + one new small result', (counter.calls - before) / runs, t])
  }

  // 4. After a checkpoint reload: new message objects with the same content.
  {
    const before = counter.calls
    const runs = 50
    const lists = Array.from({ length: runs }, () => history(bodies.map((b) => (' ' + b).slice(1))))
    const t = await timeIt(runs, (i) => compactToolMessages(lists[i], ledger, OPTIONS))
    rows.push(['first pass after a checkpoint reload (new objects, same content)', (counter.calls - before) / runs, t])
  }

  // 5. A recorded coding loop, call by call: each model call's list is the last one and its new messages.
  {
    const all = recorded(RECORDED)
    const ends = all.flatMap((m, i) => (m.type === 'ai' ? [i] : []))
    const { ledger: rl, counter: rc } = countingLedger()
    const times = []
    for (const end of ends) {
      const t0 = performance.now()
      await compactToolMessages(all.slice(0, end), rl, OPTIONS)
      times.push(performance.now() - t0)
    }
    const sorted = times.slice().sort((a, b) => a - b)
    rows.push([`recorded coding loop, call by call (${ends.length} calls, ${all.length} messages; each records its new results)`, rc.calls / ends.length, { median: sorted[Math.floor(sorted.length / 2)], p95: sorted[Math.floor(sorted.length * 0.95)], runs: ends.length }])
  }

  // Baseline: a cacheless pass that re-records every result on every call.
  {
    const naive = new Ledger()
    const runs = 50
    const t = await timeIt(runs, () => {
      for (const m of list) if (m.type === 'tool') naive.recordSync({ toolCallId: m.tool_call_id, toolName: m.name, content: m.content })
    })
    rows.push(['baseline: recordSync every result on every call (no JS cache)', N_RESULTS, t])
  }

  console.log(`## Compaction per model call (${list.length} messages, ${N_RESULTS} results of ${(chars / 1e6).toFixed(2)} M chars, ${stubs} compacted)\n`)
  console.log('| pass | ledger calls / pass | median | p95 | runs |')
  console.log('|---|---:|---:|---:|---:|')
  for (const [name, calls, t] of rows) console.log(`| ${name} | ${Number.isInteger(calls) ? calls : calls.toFixed(2)} | ${ms(t.median)} | ${ms(t.p95)} | ${t.runs} |`)
  const steady = rows[1][2]
  const ok = steady.median < 1 && rows[1][1] === 0
  console.log(`\nTarget (steady state < 1 ms, no ledger calls): ${ok ? 'met' : 'NOT met'}.\n`)
  if (!ok) process.exitCode = 1
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
