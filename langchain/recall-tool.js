'use strict'
// The `recall_tool_result` tool: the model's way back to a compacted result.
// It answers through `recall` (structured `[tool_memory …]` / `[recall: …]`
// messages, never an exception) and, when the ledger misses an id (restart,
// eviction, another replica), refills it from the run state's originals.

const { memIdFor, MAX_OUTPUT_CHARS } = require('../index.js')
const { tool } = require('@langchain/core/tools')
const { isTool, infoOf, toolCallIndex, resultOf } = require('./messages.js')
const { RECALL_TOOL_NAME } = require('../core/index.js')
const { checkLedger, optionsObject, fail, checkNamespace } = require('../lib/options.js')
const { namespaceResolver } = require('./namespace.js')
const { cacheFor, recordOnce } = require('../core/record-cache.js')
const { RECALL_SCHEMA, RECALL_DESCRIPTION, answerRecall } = require('../lib/recall-call.js')

function runtimeState(runtime) {
  if (runtime == null || typeof runtime !== 'object') return undefined
  if (runtime.state != null) return runtime.state
  const scratch = runtime.configurable && runtime.configurable.__pregel_scratchpad
  return scratch ? scratch.currentTaskInput : undefined
}

// The ledger does not hold the id (restart, eviction, another replica): find the
// original among the run state's ToolMessages and record it again. Content-bound,
// as `record` is: the candidate must hash to the id, and when two different
// results in the state do (a collision, which a tool's output could be crafted
// to cause), neither is served. Answers 'refilled', 'collision' or 'absent'.
async function refillFromState(ledger, runtime, memId, ns) {
  const state = runtimeState(runtime)
  const messages = Array.isArray(state) ? state : state && state.messages
  if (!Array.isArray(messages)) return 'absent'
  const found = candidateFor(messages, memId, memIdFor)
  if (found === null || found === 'collision') return found === null ? 'absent' : found
  const cache = cacheFor(ledger)
  cache.byCall.delete(ns + '\0' + found.m.tool_call_id)
  const e = await recordOnce(ledger, cache, ns, resultOf(found.m, found.info, toolCallIndex(messages).get(found.m.tool_call_id)))
  found.info.memId = e.memId
  return 'refilled'
}

// The one original in `messages` whose id (`hash(toolCallId, text)`) is
// `memId`: null when none is, 'collision' when two different results are.
function candidateFor(messages, memId, hash) {
  let found = null
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]
    if (!isTool(m) || !m.tool_call_id) continue
    const info = infoOf(m)
    if (info.compacted || !info.textOnly) continue
    const id = hash === memIdFor ? (info.memId ??= memIdFor(m.tool_call_id, info.text)) : hash(m.tool_call_id, info.text)
    if (id !== memId) continue
    if (found === null) found = { m, info }
    else if (found.info.text !== info.text || found.m.tool_call_id !== m.tool_call_id) return 'collision'
  }
  return found
}

/** A recall answer cap: a whole number of code points, at least 1. */
function checkCap(fn, name, v) {
  if (!Number.isSafeInteger(v) || v < 1) throw fail(fn, `${name} must be a whole number of characters, at least 1`, v)
  return v
}

/**
 * The `recall_tool_result` tool bound to `ledger`. Never throws. `fn` names
 * the public function the user called, for its TypeErrors; `report` is the
 * middleware's reporter (events), when there is one.
 */
function createRecallToolResultTool(ledger, options) {
  const fn = 'createRecallToolResultTool(ledger, options)'
  checkLedger(fn, ledger, ['fetch'])
  const o = optionsObject(fn, options, ['namespace', 'maxOutputChars'])
  checkNamespace(fn, o.namespace)
  const maxOutputChars = o.maxOutputChars == null ? MAX_OUTPUT_CHARS : checkCap(fn, 'maxOutputChars', o.maxOutputChars)
  return recallTool(ledger, namespaceResolver(o.namespace), maxOutputChars)
}

/**
 * The tool over options already checked (by `createRecallToolResultTool`, or
 * the middleware's setup): `nsOf(runtime)` is the namespace of a call.
 */
function recallTool(ledger, nsOf, maxOutputChars, report = null) {
  return tool(
    (input, runtime) =>
      answerRecall(ledger, input, {
        nsOf: () => nsOf(runtime),
        refill: (memId, ns) => refillFromState(ledger, runtime, memId, ns),
        maxOutputChars,
        report,
        // The middleware puts blocks in the form the model's provider accepts (block-form.js).
        blocks: true,
      }),
    { name: RECALL_TOOL_NAME, description: RECALL_DESCRIPTION, schema: RECALL_SCHEMA },
  )
}

module.exports = { createRecallToolResultTool, recallTool, candidateFor, checkCap }
