'use strict'
// What the usage report adds to a model call (docs/usage.md): reading the
// provider's usage, the sanity check, the estimate both ways, the cache check
// and the event, as toolMemoryMiddleware runs them after each call (the
// request as sent and without compaction serialised and priced against the
// thread's earlier ones, core/request-cost.js); next to
// the plan of the same call (compaction's own work), measured in the same run.
// And usageTotals over a whole thread, per call of the thread.
// Target: the usage path under 0.1 ms per call.
// Run: npm run bench -- usage

const { performance } = require('node:perf_hooks')
const { AIMessage, HumanMessage, ToolMessage, SystemMessage } = require('@langchain/core/messages')
const { tool } = require('@langchain/core/tools')
const { z } = require('zod')
const { usageTracker, usageTotals } = require('../../langchain/usage.js')
const { planFor } = require('../../langchain/conversation.js')
const { threadRequests } = require('../../langchain/request-text.js')
const { resolveOptions } = require('../../core/index.js')
const { reporter } = require('../../lib/report.js')
const { median, table } = require('../util.js')

const CALLS = 200
const N = 21

// A thread of CALLS calls: each answer calls a tool, whose 6,000-character result follows; usage on every answer.
function thread() {
  const messages = [new HumanMessage('Find the failing test and fix it.')]
  for (let k = 0; k < CALLS; k++) {
    const input = 2000 + k * 1600
    messages.push(
      new AIMessage({
        content: '',
        tool_calls: [{ id: `c${k}`, name: 'run', args: { cmd: `pytest -k case_${k}` }, type: 'tool_call' }],
        response_metadata: { model_name: 'claude-sonnet-4-5' },
        usage_metadata: { input_tokens: input, output_tokens: 40, total_tokens: input + 40, input_token_details: { cache_read: input - 1600, cache_creation: 1600 } },
      }),
    )
    messages.push(new ToolMessage({ tool_call_id: `c${k}`, name: 'run', content: `case ${k}\n` + `collected item ${k} passed in 0.01s\n`.repeat(170) }))
  }
  return messages
}

function main() {
  const messages = thread()
  const policy = resolveOptions({ cacheModel: 'breakpoint' }, 'bench')
  const env = { toolChars: 1200, systemChars: 3000, recallToolChars: 900 }
  const report = reporter({ warn() {} }, () => {})
  const usage = usageTracker(report)
  const runtime = { configurable: { thread_id: 'bench' } }
  const answers = messages.filter((m) => m.type === 'ai')
  const tools = [tool(async () => '', { name: 'run', description: 'Runs a shell command in the repository.', schema: z.object({ cmd: z.string() }) })]
  const system = new SystemMessage('You fix tests.')
  // One pass over the thread, call by call: the plan of each call, then the usage path on its answer.
  const planMs = []
  const usageMs = []
  for (let rep = 0; rep < N; rep++) {
    let p = 0
    let u = 0
    const texts = threadRequests()
    for (let k = 0; k < CALLS; k++) {
      const list = messages.slice(0, 1 + 2 * k)
      let t0 = performance.now()
      const { call } = planFor(list, policy, env)
      p += performance.now() - t0
      t0 = performance.now()
      // The thread's earlier requests are kept per namespace: each pass is a thread of its own.
      const requests = { ours: texts.ours(tools, system, list), none: texts.none(tools, system, list) }
      usage.after({ runtime, ns: `bench${rep}`, policy, call, sent: list, response: answers[k], system: 'You fix tests.', requests })
      u += performance.now() - t0
    }
    planMs.push(p / CALLS)
    usageMs.push(u / CALLS)
  }
  const totalsMs = []
  for (let rep = 0; rep < 5; rep++) {
    const copy = messages.map((m) => (m.type === 'ai' ? new AIMessage({ content: m.content, tool_calls: m.tool_calls, response_metadata: m.response_metadata, usage_metadata: m.usage_metadata }) : m))
    const t0 = performance.now()
    usageTotals(copy, { cacheModel: 'breakpoint' })
    totalsMs.push((performance.now() - t0) / CALLS)
  }
  const us = (ms) => `${(ms * 1000).toFixed(1)} µs`
  const [pl, up, tt] = [median(planMs), median(usageMs), median(totalsMs)]
  console.log(`## Usage report (a ${CALLS}-call thread, ${2 * CALLS + 1} messages, usage on every answer; per call, median of ${N} passes)\n`)
  console.log(
    table(
      ['work per model call', 'time', 'against the plan', 'target'],
      [
        ['the plan (compaction, pricing both ways included)', us(pl), '1×', ''],
        ['the usage path (read, check, both requests serialised and priced, cache check, event)', us(up), `${(up / pl).toFixed(3)}×`, '< 100 µs'],
        ['usageTotals of the whole thread, per call (a reload)', us(tt), `${(tt / pl).toFixed(3)}×`, ''],
      ],
    ),
  )
  console.log()
  if (up >= 0.1) process.exitCode = 1
}

main()
