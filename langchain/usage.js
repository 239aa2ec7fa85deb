'use strict'
// What each model call cost, told to the user: the usage event and the cache
// check (lib/usage-events.js, shared with the AI SDK adapter), and
// `usageTotals`, a thread added up from its messages (core/plan.js `totals`).

const { resolveOptions, COMPACT_KEYS, RECALL_TOOL_NAME, cacheModelFor } = require('../core/index.js')
const { usageTracker, warnInsane } = require('../lib/usage-events.js')
const { totalsFor } = require('./conversation.js')
const { toolChars, systemChars } = require('./request-size.js')
const { isPlainObject, checkKeys } = require('../lib/options.js')
const { recallTool, checkCap } = require('./recall-tool.js')

const FN = 'usageTotals(messages, options)'
// The options that shape the decisions (as given to the middleware), and the request around the messages.
const TOTALS_KEYS = [...COMPACT_KEYS, 'ledger', 'offload', 'recallMaxChars', 'tools', 'systemPrompt', 'model']

// The recall tool's definition per cap (its description names the cap), made once.
const recallTools = new Map()
function recallToolFor(cap) {
  let t = recallTools.get(cap)
  if (t === undefined) {
    const { Ledger } = require('../index.js')
    recallTools.set(cap, (t = recallTool(new Ledger(), () => '', cap)))
  }
  return t
}

/**
 * The totals of a thread from its messages (the graph state's, as a
 * checkpoint holds them): model calls, results compacted, recalls, the
 * estimate with and without compaction, the reported usage, the saving.
 * `options`: the middleware's options, plus the agent's `tools` and
 * `systemPrompt` (the request around the messages: the middleware prices
 * them, and binds the recall tool beside `tools`), and `model` when
 * `cacheModel` is not set. For toolMemoryPreModelHook pass neither `tools`
 * nor `systemPrompt`: the hook sees the messages only.
 */
function usageTotals(messages, options) {
  if (!Array.isArray(messages)) throw new TypeError(`${FN}: messages must be an array of BaseMessage (the thread's state.messages)`)
  const o = options == null ? {} : options
  if (!isPlainObject(o)) throw new TypeError(`${FN}: options must be an object`)
  checkKeys(FN, o, TOTALS_KEYS)
  if (o.tools != null && !Array.isArray(o.tools)) throw new TypeError(`${FN}: tools must be an array of the agent's tools`)
  if (o.systemPrompt != null && typeof o.systemPrompt !== 'string') throw new TypeError(`${FN}: systemPrompt must be a string`)
  if (o.recallMaxChars != null) checkCap(FN, 'recallMaxChars', o.recallMaxChars)
  const policyOptions = {}
  for (const k of COMPACT_KEYS) if (o[k] !== undefined && k !== 'namespace') policyOptions[k] = o[k]
  policyOptions.cacheModel = o.cacheModel ?? cacheModelFor(o.model)
  const policy = resolveOptions(policyOptions, FN, COMPACT_KEYS)
  const count = policy.countTokens
  let others = 0
  for (const t of o.tools ?? []) if (!(t && t.name === RECALL_TOOL_NAME)) others += toolChars(t, count)
  const { MAX_OUTPUT_CHARS } = require('../index.js')
  const recall = o.tools == null ? 0 : toolChars(recallToolFor(o.recallMaxChars ?? MAX_OUTPUT_CHARS), count)
  const env = { toolChars: others, systemChars: systemChars({ systemPrompt: o.systemPrompt ?? '' }, count), recallToolChars: recall }
  try {
    return totalsFor(messages, policy, env)
  } catch (e) {
    if (e instanceof TypeError) throw e
    throw new TypeError(`${FN}: a message could not be read (${e && e.message})`)
  }
}

module.exports = { usageTracker, usageTotals, warnInsane }
