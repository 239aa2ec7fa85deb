'use strict'
// A LangChain model request as the core's ruler reads it (core/request-cost.js):
// the bound tools' definitions as one string, then each message the model
// receives (the system message first, as createAgent prepends it) as one
// string. `npm run bench:context` records its requests with the same
// functions, so the usage report and the bench price the same thing.

const { messageText } = require('../core/request-cost.js')
const { RECALL_TOOL_NAME } = require('../core/options.js')

const texts = new WeakMap() // message -> { content, text }
const toolTexts = new WeakMap() // tool -> its definition as JSON

/** One message as the provider receives it (cached per message object and content). */
function messageTextOf(m) {
  if (m === null || typeof m !== 'object') return messageText({ type: undefined, content: m })
  const hit = texts.get(m)
  if (hit !== undefined && hit.content === m.content) return hit.text
  const type = typeof m._getType === 'function' ? m._getType() : m.type
  const text = messageText({ type, name: m.name, id: m.tool_call_id, content: m.content, calls: m.tool_calls })
  texts.set(m, { content: m.content, text })
  return text
}

function toolText(t) {
  if (t === null || typeof t !== 'object') return JSON.stringify(t) ?? 'null'
  let s = toolTexts.get(t)
  if (s === undefined) {
    const { convertToOpenAITool } = require('@langchain/core/utils/function_calling')
    s = JSON.stringify(t.schema ? convertToOpenAITool(t) : t) ?? 'null'
    toolTexts.set(t, s)
  }
  return s
}

/** The tool definitions of a request as one JSON array, in order. */
const toolsText = (tools) => `[${tools.map(toolText).join(',')}]`

/** Whether a message carries an Anthropic cache_control mark (on any content block). */
const hasCacheMark = (m) => m != null && Array.isArray(m.content) && m.content.some((b) => b && typeof b === 'object' && b.cache_control != null)

/**
 * The request the model receives: `tools` bound, the system message (when it
 * has text), then `messages`, as `{ tools, messages, marked }` strings.
 */
function requestOf(tools, system, messages) {
  const all = system != null && system.text !== '' && system.content !== '' ? [system, ...messages] : messages
  return { tools: toolsText(tools), messages: all.map(messageTextOf), marked: all.map(hasCacheMark) }
}

const isRecallCall = (c) => c != null && c.name === RECALL_TOOL_NAME

/**
 * The same request without compaction: the original messages less the
 * recall calls and their answers, the tools less the recall tool.
 */
function noneRequestOf(tools, system, messages) {
  const recallIds = new Set()
  const kept = []
  for (const m of messages) {
    const calls = m != null && Array.isArray(m.tool_calls) ? m.tool_calls : []
    const recalls = calls.filter(isRecallCall)
    for (const c of recalls) if (c.id) recallIds.add(c.id)
    if (recalls.length > 0 && recalls.length === calls.length && !m.content) continue
    if (m != null && m.tool_call_id !== undefined && (recallIds.has(m.tool_call_id) || m.name === RECALL_TOOL_NAME)) continue
    kept.push(recalls.length > 0 ? { type: 'ai', name: m.name, content: m.content, tool_calls: calls.filter((c) => !isRecallCall(c)) } : m)
  }
  return requestOf(
    tools.filter((t) => !(t && t.name === RECALL_TOOL_NAME)),
    system,
    kept,
  )
}

module.exports = { messageTextOf, toolsText, hasCacheMark, requestOf, noneRequestOf }
