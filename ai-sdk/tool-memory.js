'use strict'
// `toolMemory(options)`: tool-result memory for the Vercel AI SDK (ai 6 and
// 7). It answers `{ tools: { recall_tool_result }, prepareStep }`: the app
// spreads the tools into its own and passes `prepareStep` to generateText,
// streamText or a ToolLoopAgent (or composes it with its own:
// `composePrepareStep`). Each step's messages are compacted by the core's
// policy of the step model's cache style; the SDK keeps the originals.

const { Ledger, MAX_OUTPUT_CHARS } = require('../index.js')
const { resolveOptions, TOOL_MEMORY_KEYS, RECALL_TOOL_NAME, cachedCacheModelFor } = require('../core/index.js')
const { optionsObject, checkLedger, fail, isNamespace, NAMESPACE_TEXT } = require('../lib/options.js')
const { reporter } = require('../lib/report.js')
const { recallTool } = require('./recall-tool.js')
const { stepState, compactStep } = require('./compact.js')
const { toolChars, toolSetChars, instructionsChars } = require('./request-size.js')
const { stepUsage, usageTotals } = require('./usage.js')

const FN = 'toolMemory(options)'
// The middleware's options, less offload (the SDK keeps no state to offload
// from), plus `store` (a shorthand for a new Ledger({ store })) and `tools`
// (the app's tool set, measured for the budget: a prepareStep cannot see it).
const KEYS = [...TOOL_MEMORY_KEYS.filter((k) => k !== 'offload'), 'store', 'tools']

function checkCap(v) {
  if (!Number.isSafeInteger(v) || v < 1) throw fail(FN, 'recallMaxChars must be a whole number of characters, at least 1', v)
  return v
}

/**
 * `{ tools: { recall_tool_result }, prepareStep }` over one ledger and
 * namespace. Programmer's mistakes in `options` are TypeErrors naming
 * `toolMemory(options)`; nothing a model sends ever throws.
 */
function toolMemory(options) {
  const o = optionsObject(FN, options, KEYS)
  if (o.ledger != null) checkLedger(FN, o.ledger, ['record', 'fetch', 'handle', 'stub'])
  if (o.ledger != null && o.store != null) throw new TypeError(`${FN}: pass ledger or store, not both (store is a shorthand for ledger: new Ledger({ store }))`)
  // The SDK gives a step and a tool call no common run context to read a
  // namespace from: one toolMemory() per conversation carries its own.
  if (o.namespace != null && !isNamespace(o.namespace)) throw fail(FN, `namespace must be ${NAMESPACE_TEXT} (make one toolMemory() per conversation)`, o.namespace)
  if (o.tools != null && (typeof o.tools !== 'object' || Array.isArray(o.tools))) throw fail(FN, 'tools must be your tool set, an object { name: tool } as you pass it to the SDK', o.tools)
  const maxOutputChars = o.recallMaxChars == null ? MAX_OUTPUT_CHARS : checkCap(o.recallMaxChars)
  const compactOptions = { ...o }
  for (const k of ['ledger', 'store', 'namespace', 'recallMaxChars', 'tools']) delete compactOptions[k]
  if (o.cacheModel != null) resolveOptions({ cacheModel: o.cacheModel }, FN)
  const policies = {
    breakpoint: resolveOptions({ ...compactOptions, cacheModel: 'breakpoint' }, FN, KEYS),
    prefix: resolveOptions({ ...compactOptions, cacheModel: 'prefix' }, FN, KEYS),
  }
  const ledger = o.ledger ?? (o.store != null ? new Ledger({ store: o.store }) : new Ledger())
  const ns = o.namespace == null ? '' : String(o.namespace)
  const report = reporter(policies.prefix.logger, policies.prefix.onEvent)
  const state = stepState()
  const recall = recallTool(ledger, ns, maxOutputChars, report, state)
  const count = policies.prefix.countTokens
  const recallChars = toolChars(RECALL_TOOL_NAME, recall, count)
  const appToolChars = o.tools == null ? 0 : toolSetChars(o.tools, RECALL_TOOL_NAME, count)
  const usage = stepUsage(report)

  async function prepareStep(step) {
    const messages = step && Array.isArray(step.messages) ? step.messages : null
    if (messages === null) return {}
    const policy = policies[o.cacheModel ?? cachedCacheModelFor(step.model)]
    const env = { toolChars: appToolChars, systemChars: instructionsChars(step, count), recallToolChars: recallChars }
    usage.learn(step, messages)
    const { messages: out, answered } = await compactStep(messages, ledger, policy, ns, env, state, report, usage.usageAt)
    usage.after(step, answered, out, ns, policy)
    return out.every((m, i) => m === messages[i]) ? {} : { messages: out }
  }
  return { tools: { [RECALL_TOOL_NAME]: recall }, prepareStep }
}

/**
 * One prepareStep of several: each runs in order, seeing the step with the
 * settings the earlier ones answered (their `messages` included), and their
 * answers are merged (later ones win).
 */
function composePrepareStep(...fns) {
  for (const [i, f] of fns.entries()) {
    if (f != null && typeof f !== 'function') throw fail('composePrepareStep(...prepareSteps)', `argument ${i} must be a prepareStep function`, f)
  }
  const list = fns.filter((f) => f != null)
  return async (step) => {
    let merged = {}
    let current = step
    for (const f of list) {
      const r = await f(current)
      if (r == null) continue
      merged = { ...merged, ...r }
      current = { ...current, ...r }
    }
    return merged
  }
}

/** A conversation's totals (docs/usage.md): `usage.js` `usageTotals`, with toolMemory()'s options. */
const totalsOf = (messages, options) => usageTotals(messages, options, KEYS)

module.exports = { toolMemory, composePrepareStep, usageTotals: totalsOf }
