'use strict'
// The AI SDK's `recall_tool_result`: the same arguments and answers as the
// LangChain tool (lib/recall-call.js), as a tool object the SDK accepts in
// `tools` (what its `tool()` returns: description, inputSchema, execute). When
// the ledger misses an id (a restart, an eviction, another replica), the
// original is found among the messages the step was sent (mapped back from
// our stubs) and recorded again.

const { memIdFor } = require('../index.js')
const { cacheFor, recordOnce } = require('../core/record-cache.js')
const { callArgs } = require('../core/index.js')
const { RECALL_SCHEMA, RECALL_DESCRIPTION, answerRecall } = require('../lib/recall-call.js')
const { outputText, resultParts } = require('./messages.js')

// The one original tool result among `messages` whose id (`memIdFor(toolCallId,
// text)`) is `memId`: null when none is, 'collision' when two different ones are.
function candidateFor(messages, memId, state) {
  let found = null
  const calls = new Map()
  for (const raw of messages) {
    const m = raw !== null && typeof raw === 'object' ? (state.originalOf.get(raw) ?? raw) : null
    if (m === null) continue
    if (m.role === 'assistant' && Array.isArray(m.content)) for (const p of m.content) if (p && p.type === 'tool-call') calls.set(p.toolCallId, p)
    if (m.role !== 'tool') continue
    for (const p of resultParts(m)) {
      if (state.ours.has(p) || typeof p.toolCallId !== 'string') continue
      const { text, textOnly } = outputText(p.output)
      if (!textOnly || memIdFor(p.toolCallId, text) !== memId) continue
      if (found === null) found = { part: p, text }
      else if (found.text !== text || found.part.toolCallId !== p.toolCallId) return 'collision'
    }
  }
  if (found !== null && found !== 'collision') found.call = calls.get(found.part.toolCallId)
  return found
}

async function refillFrom(ledger, messages, memId, ns, state) {
  if (!Array.isArray(messages)) return 'absent'
  const found = candidateFor(messages, memId, state)
  if (found === null || found === 'collision') return found === null ? 'absent' : found
  const cache = cacheFor(ledger)
  const { part, text, call } = found
  cache.byCall.delete(ns + '\0' + part.toolCallId)
  await recordOnce(ledger, cache, ns, { callId: part.toolCallId, toolName: part.toolName || (call && call.toolName) || 'unknown_tool', text, args: callArgs(call && { args: call.input }) })
  return 'refilled'
}

/** The tool, over options already checked by toolMemory(). */
function recallTool(ledger, ns, maxOutputChars, report, state) {
  return {
    description: RECALL_DESCRIPTION,
    inputSchema: RECALL_SCHEMA,
    execute: (input, options) =>
      answerRecall(ledger, input, {
        nsOf: () => ns,
        refill: (memId) => refillFrom(ledger, options && options.messages, memId, ns, state),
        maxOutputChars,
        report,
      }),
  }
}

module.exports = { recallTool }
