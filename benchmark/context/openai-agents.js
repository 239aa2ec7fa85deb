'use strict'
// The conversations of `npm run bench:context` replayed through the OpenAI
// Agents SDK (@openai/agents): a real `run` with the SDK's test model
// (ScriptedModel + modelResponder) answering through the same drivers as the
// LangChain replays (harness.js, recorded.js), with no compaction and with
// `toolMemory()` from @symfonic/core/openai-agents. Each request the model
// receives is shown to the driver as the LangChain messages it stands for
// (system prompt, user, assistant with its calls, tool results), so both are
// priced by one ruler (pricing.js). A cache mark is what Anthropic receives
// through the SDK's AI SDK bridge (`aisdk()` of @openai/agents-extensions):
// `providerData.anthropic.cacheControl` on an item (or on a message's content
// part) becomes `cache_control` on its block; the bridge drops the SDK's
// `promptCacheBreakpoint`, so it marks nothing. What the filter itself costs is timed per model call.

const { performance } = require('node:perf_hooks')
const { z } = require('zod')
const { convertToOpenAITool } = require('@langchain/core/utils/function_calling')
const { price } = require('./pricing.js')
const { Driver } = require('./harness.js')
const { RecordedDriver } = require('./recorded.js')

const sdk = () => require('@openai/agents')
const testing = () => require('@openai/agents/testing')

// A request's items as the messages the drivers read (recorded.js, harness.js).
function asMessages(instructions, items) {
  const out = []
  const msg = (type, fields) => ({ _getType: () => type, ...fields })
  if (instructions) out.push(msg('system', { content: instructions }))
  const textOf = (c) => (typeof c === 'string' ? c : Array.isArray(c) ? c.map((p) => (typeof p === 'string' ? p : p.text ?? p.refusal ?? '')).join('') : c && typeof c.text === 'string' ? c.text : '')
  const cacheControl = (x) => !!(x && x.providerData && x.providerData.anthropic && (x.providerData.anthropic.cacheControl || x.providerData.anthropic.cache_control))
  const marked = (it, c) => cacheControl(it) || (Array.isArray(c) && c.some(cacheControl))
  // (A tool result's parts carry none: the bridge joins their text.)
  const content = (it, c, parts = c) => (marked(it, parts) ? [{ type: 'text', text: textOf(c), cache_control: { type: 'ephemeral' } }] : textOf(c))
  let ai = null
  for (const it of items) {
    const assistant = it.type === 'function_call' || it.type === 'reasoning' || it.role === 'assistant'
    if (!assistant) ai = null
    if (it.type === 'function_call') {
      if (ai === null) out.push((ai = msg('ai', { content: '', tool_calls: [] })))
      let args
      try {
        args = JSON.parse(it.arguments)
      } catch {
        args = {}
      }
      ai.tool_calls.push({ id: it.callId, name: it.name, args })
      if (marked(it)) ai.marked = true
    } else if (it.role === 'assistant') {
      if (ai === null) out.push((ai = msg('ai', { content: '', tool_calls: [] })))
      ai.content += textOf(it.content)
      if (marked(it, it.content)) ai.marked = true
    } else if (it.type === 'function_call_result') {
      out.push(msg('tool', { tool_call_id: it.callId, name: it.name, content: content(it, it.output, null) }))
    } else if (it.role === 'user') {
      out.push(msg('human', { content: content(it, it.content) }))
    } else if (it.type !== 'reasoning') {
      out.push(msg('system', { content: textOf(it.content) }))
    }
  }
  for (const m of out) if (m.marked) m.content = [{ type: 'text', text: m.content, cache_control: { type: 'ephemeral' } }]
  return out
}

// A driver's answer (a LangChain AIMessage) as the SDK's output items.
function asOutput(message) {
  const { assistantMessage, functionCall } = testing()
  const out = []
  const text = typeof message.content === 'string' ? message.content : ''
  const calls = message.tool_calls || []
  // An answer without calls ends the turn, even an empty one (as an AIMessage('') does).
  if (text || calls.length === 0) out.push(assistantMessage(text))
  for (const c of calls) out.push(functionCall(c.name, c.args || {}, { callId: c.id }))
  return out
}

// The conversation's tools; each answers with the payload the driver holds for the call.
function appTools(conv, driver) {
  const { tool } = sdk()
  const specs = conv.recorded ? [...conv.tools].map(([name, keys]) => [name, `${name} (recorded)`, [...keys]]) : Object.entries(conv.tools).map(([name, spec]) => [name, spec.description, Object.keys(spec.args)])
  return specs.map(([name, description, keys]) =>
    tool({
      name,
      description,
      strict: false,
      // The very schema the LangChain replay binds (as the AI SDK replay does), so both send the same tools.
      // (As plain JSON: the SDK takes an object with zod's Standard Schema marker for a zod schema.)
      parameters: JSON.parse(JSON.stringify(convertToOpenAITool({ name, description, schema: z.object(Object.fromEntries(keys.map((k) => [k, conv.recorded ? z.unknown().optional() : z.string().describe('arg')]))) }).function.parameters)),
      execute: async (_input, _ctx, details) => {
        const id = details && details.toolCall && details.toolCall.callId
        const payload = conv.recorded ? driver.payloads.get(id) : driver.byCallId.get(id) && driver.byCallId.get(id).payload
        if (payload === undefined) throw new Error(`${conv.name}: no payload for ${name} call ${id}`)
        return payload
      },
    }),
  )
}

/**
 * Replays `conv` through the Agents SDK, with `toolMemory(options)` when
 * `options` is given; returns the driver (its requests and needs) and the
 * filter's time per call.
 */
async function replayAgents(conv, options) {
  const { Agent, run, setTracingDisabled } = sdk()
  setTracingDisabled(true) // offline: no trace exporter
  const { ScriptedModel, modelResponder } = testing()
  const { toolMemory } = require('../../openai-agents/index.js')
  if (conv.recorded) for (const t of conv.turns) for (const s of t.steps) for (const n of s.needs) delete n.done
  const driver = conv.recorded ? new RecordedDriver(conv) : new Driver(conv)
  // The ledger's own work (recording, stubs: the same as under the LangChain
  // middleware) is timed apart from the adapter's (mapping, plan, rewriting).
  let ledgerMs = 0
  const timed = (ledger) => {
    const wrap = (name) => async (...a) => {
      const c0 = process.cpuUsage()
      try {
        return await ledger[name](...a)
      } finally {
        const c = process.cpuUsage(c0)
        ledgerMs += (c.user + c.system) / 1000
      }
    }
    return { record: wrap('record'), stub: wrap('stub'), fetch: wrap('fetch'), handle: wrap('handle'), recall: wrap('recall') }
  }
  const memory = options ? toolMemory({ ...options, ledger: timed(new (require('../..').Ledger)()) }) : null
  // The filter's cost per call in CPU time (this process's, its native
  // threads' included: nothing else runs while the SDK awaits the filter), so
  // that other work on a shared machine does not count; wall time beside it.
  const filterMs = []
  const wallMs = []
  const adapterMs = []
  const filter = memory && Object.assign(async (args) => {
    const t0 = performance.now()
    const c0 = process.cpuUsage()
    const l0 = ledgerMs
    try {
      return await memory.callModelInputFilter(args)
    } finally {
      const c = process.cpuUsage(c0)
      filterMs.push((c.user + c.system) / 1000)
      adapterMs.push((c.user + c.system) / 1000 - (ledgerMs - l0))
      wallMs.push(performance.now() - t0)
    }
  }, { preserveInputIdentity: true })
  const respond = ({ request }) => {
    // Recorded in LangChain's shape (convertToOpenAITool's), as the AI SDK replay records them: one ruler for both.
    const tools = request.tools.map((t) => Object.defineProperty({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }, 'name', { value: t.name }))
    return asOutput(driver.respond(asMessages(request.systemInstructions, request.input), tools))
  }
  // Each answer scripts the next call's: as many calls as the driver asks for.
  const model = new ScriptedModel()
  const step = modelResponder((call) => {
    model.enqueue(step)
    return respond(call)
  })
  model.enqueue(step)
  const agent = new Agent({ name: 'bench', instructions: conv.system || '', model, tools: [...appTools(conv, driver), ...(memory ? memory.tools : [])] })
  let history = []
  for (let i = 0; i < conv.turns.length; i++) {
    driver.startTurn(i)
    const users = conv.recorded ? conv.turns[i].users : [conv.turns[i].user]
    const input = [...history, ...users.map((u) => ({ type: 'message', role: 'user', content: u }))]
    const result = await run(agent, input, { maxTurns: 100000, ...(filter ? { callModelInputFilter: filter } : {}) })
    if (!driver.turnDone()) throw new Error(`${conv.name}/openai-agents: turn ${i} ended early`)
    history = result.history
  }
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length)
  return { driver, calls: filterMs.length, msPerCall: mean(filterMs), adapterMsPerCall: mean(adapterMs), wallMsPerCall: mean(wallMs), filterMs, adapterMs }
}

/**
 * ours / none through the Agents SDK beside the LangChain middleware's
 * (`rows`: context.js's compare rows), per conversation and cache model, as
 * a Markdown table and a summary line.
 */
async function agentsParity(convs, rows, caches) {
  const T = require('./tables.js')
  const out = []
  for (const conv of convs) {
    const none = await replayAgents(conv, null)
    for (const c of caches) {
      const ours = await replayAgents(conv, { cacheModel: c })
      const ratio = price(ours.driver.requests, c).cost / price(none.driver.requests, c).cost
      const lc = rows.find((r) => r.conv === conv.name && r.cache === c)
      const s = ours.driver.stats
      // Scripted: still the cheapest strategy (within 2 %), beside LangChain's baselines.
      const others = Math.min(...['contextEditing', 'python'].map((b) => lc.vsNone[b]), 1)
      out.push({ conv, cache: c, calls: ours.calls, lc: lc.oursVsNone, agents: ratio, diff: ratio / lc.oursVsNone - 1, needs: s.needs, lost: s.lost, cheapest: ratio <= others * (1 + T.TOLERANCE), ms: ours.msPerCall, adapterMs: ours.adapterMsPerCall })
    }
  }
  const table = T.mdTable(
    ['conversation', 'cache', 'model calls', 'LangChain ours / none', 'Agents SDK ours / none', 'difference', 'needs met', 'filter CPU ms / call', 'adapter CPU ms / call'],
    out.map((r) => [r.conv.name, r.cache, r.calls, T.ratio(r.lc), T.ratio(r.agents), `${r.diff >= 0 ? '+' : ''}${(100 * r.diff).toFixed(1)}%${Math.abs(r.diff) > 0.02 ? ' **over 2 %**' : ''}`, `${r.needs - r.lost}/${r.needs}`, r.ms.toFixed(2), r.adapterMs.toFixed(2)]),
    ['conversation', 'cache'],
  )
  const summary = caches.map((c) => {
    const mine = out.filter((r) => r.cache === c)
    const within = mine.filter((r) => Math.abs(r.diff) <= 0.02).length
    const scripted = mine.filter((r) => !r.conv.recorded)
    const longest = mine.reduce((a, r) => (r.calls > a.calls ? r : a))
    return `${c}: within 2 % on ${within}/${mine.length}; scripted cheapest ${scripted.filter((r) => r.cheapest).length}/${scripted.length}; needs met ${mine.reduce((a, r) => a + r.needs - r.lost, 0)}/${mine.reduce((a, r) => a + r.needs, 0)}; adapter CPU at ${longest.calls} calls (${longest.conv.name}): ${longest.adapterMs.toFixed(2)} ms / call`
  })
  return { rows: out, table: `${table}\n\n${summary.map((l) => `- ${l}`).join('\n')}` }
}

module.exports = { replayAgents, agentsParity, asMessages }
