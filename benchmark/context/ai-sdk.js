'use strict'
// Replays a conversation (scripted or recorded) through the Vercel AI SDK:
// `generateText` with the SDK's test model (MockLanguageModelV4), the
// conversation's tools as AI SDK tools, and `@symfonic/core/ai-sdk`'s
// `toolMemory` (ours) or nothing (none). The same drivers as the LangChain
// replay (harness.js, recorded.js) answer each model call: the test model
// hands them the prompt the SDK built, as messages they read (LangChain-shaped
// plain objects), and returns their answer. Every request is recorded as the
// LangChain replay records it (pricing.js), so the two runs are priced with
// one ruler: the tool definitions the SDK sent, then its messages.

const { performance } = require('node:perf_hooks')
const ai = require('ai')
const { MockLanguageModelV4 } = require('ai/test')
const { z } = require('zod')
const { convertToOpenAITool } = require('@langchain/core/utils/function_calling')
// The core's plan (the policy every adapter shares) is timed apart from the
// adapter's own work: wrapped here, before the adapter takes it.
const core = require('../../core/index.js')
const realPlan = core.plan
let inPlan = 0
core.plan = (...args) => {
  const t0 = performance.now()
  try {
    return realPlan(...args)
  } finally {
    inPlan += performance.now() - t0
  }
}
const { toolMemory } = require('../../ai-sdk/index.js')
const { Ledger } = require('../../index.js')
const { price } = require('./pricing.js')
const { Driver } = require('./harness.js')
const { RecordedDriver } = require('./recorded.js')
const T = require('./tables.js')

const USAGE = { inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 0, text: 0, reasoning: 0 } }
const TYPES = { system: 'system', user: 'human', assistant: 'ai', tool: 'tool' }

// A message of the SDK's prompt as the drivers read it (LangChain's fields).
function asRead(type, text, fields, marked) {
  const content = marked ? [{ type: 'text', text, cache_control: { type: 'ephemeral' } }] : text
  return { _getType: () => type, content, ...fields }
}

const isMarked = (x) => !!(x && x.providerOptions && x.providerOptions.anthropic && x.providerOptions.anthropic.cacheControl)
const outputText = (o) => (o.type === 'text' || o.type === 'error-text' ? o.value : o.type === 'json' || o.type === 'error-json' ? JSON.stringify(o.value) : JSON.stringify(o))

// Converted messages, per serialised prompt message: the drivers cache what
// they read per message object, as they do for LangChain's (stable) messages.
function converter() {
  const seen = new Map()
  return (prompt) => {
    const out = []
    for (const m of prompt) {
      const key = JSON.stringify(m)
      let conv = seen.get(key)
      if (conv === undefined) {
        conv = []
        const parts = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content
        const text = parts.filter((p) => p.type === 'text').map((p) => p.text).join('')
        if (m.role === 'tool') {
          for (const p of parts) if (p.type === 'tool-result') conv.push(asRead('tool', outputText(p.output), { tool_call_id: p.toolCallId, name: p.toolName }, isMarked(p) || isMarked(m)))
        } else {
          const calls = parts.filter((p) => p.type === 'tool-call').map((p) => ({ id: p.toolCallId, name: p.toolName, args: p.input }))
          conv.push(asRead(TYPES[m.role], text, calls.length ? { tool_calls: calls } : {}, isMarked(m) || parts.some(isMarked)))
        }
        seen.set(key, conv)
      }
      out.push(...conv)
    }
    return out
  }
}

// The driver's AIMessage as the test model's answer.
function answerOf(message) {
  const content = []
  const text = typeof message.content === 'string' ? message.content : ''
  if (text) content.push({ type: 'text', text })
  for (const c of message.tool_calls || []) content.push({ type: 'tool-call', toolCallId: c.id, toolName: c.name, input: JSON.stringify(c.args || {}) })
  return { content, finishReason: { unified: content.some((c) => c.type === 'tool-call') ? 'tool-calls' : 'stop', raw: undefined }, usage: USAGE, warnings: [] }
}

/**
 * Replays `conv` through the AI SDK: `cacheModel` null for none (no memory),
 * else ours under that cache model. `driver` answers the model; `toolsOf`
 * gives the conversation's tools as { name: { description, keys, payload(id) } };
 * `usersOf(turn)` the user messages of a turn. Returns the driver, with
 * `stepMs` (prepareStep's own time per step).
 */
async function replayAiSdk(conv, cacheModel, driver, toolsOf, usersOf) {
  const read = converter()
  const model = new MockLanguageModelV4({
    provider: cacheModel === 'breakpoint' ? 'anthropic.messages' : 'openai.responses',
    modelId: cacheModel === 'breakpoint' ? 'claude-bench' : 'gpt-bench',
    doGenerate: async (opts) => {
      // As LangChain's replay records them (convertToOpenAITool's shape), so that one ruler prices both.
      const tools = (opts.tools || []).map((t) => Object.defineProperty({ type: 'function', function: { name: t.name, description: t.description, parameters: t.inputSchema } }, 'name', { value: t.name }))
      const messages = read(opts.prompt)
      return answerOf(driver.respond(messages, tools))
    },
  })
  const tools = {}
  for (const [name, t] of Object.entries(toolsOf(driver))) {
    // The very definition the LangChain replay binds (its JSON schema), so both frameworks send the same tools.
    const schema = z.object(Object.fromEntries(t.keys.map((k) => [k, t.type])))
    const parameters = convertToOpenAITool({ name, description: t.description, schema }).function.parameters
    tools[name] = ai.tool({ description: t.description, inputSchema: ai.jsonSchema(parameters), execute: async (_input, { toolCallId }) => t.payload(toolCallId) })
  }
  let prepareStep
  const stepMs = []
  const ownMs = []
  if (cacheModel !== null) {
    // The ledger's time (recording a result, making its stub: the same for
    // every adapter) is told apart from the adapter's own.
    const ledger = new Ledger()
    let inLedger = 0
    let inFlight = 0
    let since = 0
    const timed = (f) => async (...args) => {
      if (inFlight++ === 0) since = performance.now()
      try {
        return await f(...args)
      } finally {
        if (--inFlight === 0) inLedger += performance.now() - since
      }
    }
    const wrapped = { record: timed((...a) => ledger.record(...a)), stub: timed((...a) => ledger.stub(...a)), handle: (...a) => ledger.handle(...a), fetch: (...a) => ledger.fetch(...a) }
    const memory = toolMemory({ cacheModel, ledger: wrapped, tools: { ...tools } })
    Object.assign(tools, memory.tools)
    prepareStep = async (step) => {
      inLedger = 0
      inPlan = 0
      const t0 = performance.now()
      const r = await memory.prepareStep(step)
      const ms = performance.now() - t0
      stepMs.push(ms)
      ownMs.push(ms - inLedger - inPlan)
      return r
    }
  }
  const messages = []
  for (let i = 0; i < conv.turns.length; i++) {
    driver.startTurn(i)
    messages.push(...usersOf(conv.turns[i]).map((u) => ({ role: 'user', content: u })))
    const r = await ai.generateText({ model, system: conv.system, tools, messages: messages.slice(), prepareStep, stopWhen: ai.isStepCount(10000) })
    if (!driver.turnDone()) throw new Error(`${conv.name}/ai-sdk: turn ${i} ended early`)
    messages.push(...r.responseMessages)
  }
  driver.stepMs = stepMs
  driver.ownMs = ownMs
  return driver
}

// The conversation's tools, from its script: a scripted conversation's
// (string arguments) or a recorded one's (whatever the recording sent).
function toolsOf(conv) {
  if (conv.recorded) {
    return (driver) => Object.fromEntries([...conv.tools].map(([name, keys]) => [name, { description: `${name} (recorded)`, keys: [...keys], type: z.unknown().optional(), payload: (id) => driver.payloads.get(id) }]))
  }
  return (driver) => Object.fromEntries(Object.entries(conv.tools).map(([name, spec]) => [name, { description: spec.description, keys: Object.keys(spec.args), type: z.string().describe('arg'), payload: (id) => driver.byCallId.get(id).payload }]))
}

/** One replay of `conv` through the AI SDK (cacheModel null: none), with a fresh driver. */
function run(conv, cacheModel) {
  if (conv.recorded) {
    for (const t of conv.turns) for (const s of t.steps) for (const n of s.needs) delete n.done
    return replayAiSdk(conv, cacheModel, new RecordedDriver(conv), toolsOf(conv), (turn) => turn.users)
  }
  return replayAiSdk(conv, cacheModel, new Driver(conv), toolsOf(conv), (turn) => [turn.user])
}

const CACHES = ['breakpoint', 'prefix']

// A request's tool results, each in full (F) or compacted (S: a stub or a note).
const decisions = (r) => r.messages.map((m) => (m.startsWith('<tool') ? (/\[symfonic\.tool_memory|not shown: recall_tool_result/.test(m) ? 'S' : 'F') : '')).join('')

const median = (xs) => {
  if (xs.length === 0) return 0
  const s = [...xs].sort((a, b) => a - b)
  return s[s.length >> 1]
}

/**
 * The parity table: each conversation through the AI SDK adapter, ours / none
 * (both through the SDK) beside the LangChain middleware's (`rows`, from
 * context.js), per cache model; and prepareStep's own time per step (the
 * median: a shared machine's preemptions make single steps noisy), less the
 * ledger's and the core plan's, which every adapter pays alike.
 */
async function parity(convs, rows, lcReplay) {
  const out = []
  const diffs = []
  let longest = null
  for (const conv of convs) {
    const none = await run(conv, null)
    for (const c of CACHES) {
      const ours = await run(conv, c)
      const ratio = price(ours.requests, c).cost / price(none.requests, c).cost
      const lc = rows.find((r) => r.conv === conv.name && r.cache === c).oursVsNone
      const diff = ratio / lc - 1
      // The same decisions: each request's tool results, in full or compacted, as the LangChain replay's.
      const lcRun = await lcReplay(conv, c)
      const same = lcRun.requests.length === ours.requests.length && lcRun.requests.every((r, i) => decisions(r) === decisions(ours.requests[i]))
      diffs.push({ conv: conv.name, cache: c, diff, lost: ours.stats.lost, same })
      if (longest === null || ours.ownMs.length > longest.own.length) longest = { conv: conv.name, cache: c, own: ours.ownMs, total: ours.stepMs }
      out.push([conv.name, c, ours.requests.length, T.ratio(lc), T.ratio(ratio), `${diff >= 0 ? '+' : ''}${(100 * diff).toFixed(2)}%`, same ? 'yes' : '**no**', `${ours.stats.needs - ours.stats.lost}/${ours.stats.needs}`, median(ours.ownMs).toFixed(2)])
    }
  }
  const table = T.mdTable(['conversation', 'cache', 'model calls', 'LangChain ours / none', 'AI SDK ours / none', 'difference', 'same decisions', 'needs met', 'own ms / step (median)'], out)
  const late = longest.own.slice(-30)
  const summary = {
    worst: Math.max(...diffs.map((d) => Math.abs(d.diff))),
    over: diffs.filter((d) => Math.abs(d.diff) > T.TOLERANCE),
    lost: diffs.reduce((a, d) => a + d.lost, 0),
    differ: diffs.filter((d) => !d.same),
    longest: { conv: longest.conv, cache: longest.cache, steps: longest.own.length, ownMedian: median(longest.own), ownLast30: median(late), totalMedian: median(longest.total) },
  }
  return { table, summary }
}

module.exports = { replayAiSdk, parity, run }
