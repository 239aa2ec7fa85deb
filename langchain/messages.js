'use strict'
// What compaction reads from LangChain messages: their kind, the text of a
// ToolMessage (computed once per message object), the tool calls of the
// AIMessages, and which messages are ours. No ledger here; conversation.js
// maps them to the core's plain data.

const { codePoints, callArgs } = require('../core/index.js')

function msgType(m) {
  if (m == null || typeof m !== 'object') return undefined
  if (typeof m.type === 'string') return m.type
  return typeof m._getType === 'function' ? m._getType() : undefined
}
const isTool = (m) => msgType(m) === 'tool'
const isAI = (m) => msgType(m) === 'ai'

// The text of a content value: a string, or the text blocks of a block list.
// `textOnly` is false when a block is not text (images cannot be recalled as text).
function contentText(content) {
  if (typeof content === 'string') return { text: content, textOnly: true }
  if (!Array.isArray(content)) return { text: '', textOnly: false }
  const parts = []
  let textOnly = true
  for (const block of content) {
    if (typeof block === 'string') parts.push(block)
    else if (block && block.type === 'text' && typeof block.text === 'string') parts.push(block.text)
    else textOnly = false
  }
  return { text: parts.join(''), textOnly }
}

// The messages compaction made (stubs, notes, placeholders and their marked
// copies). Whether a message is already compacted is known from this set
// alone, never from its content or metadata, which a tool or a model controls
// (a web page may well begin with our stub header).
const ours = new WeakSet()
const markOurs = (m) => {
  ours.add(m)
  return m
}
const isOurs = (m) => m !== null && typeof m === 'object' && ours.has(m)
// A message from the state that is verifiably one of ours (an offloaded stub,
// checked against the ledger): known as compacted from now on.
const adoptAsOurs = (m) => {
  ours.add(m)
  infoCache.delete(m)
}

// What compaction needs to know about one ToolMessage object, computed once.
// Keyed by the message object; `content` guards against in-place edits.
const infoCache = new WeakMap()

function infoOf(m) {
  const content = m.content
  let info = infoCache.get(m)
  if (info !== undefined && info.content === content) return info
  const { text, textOnly } = contentText(content)
  const compacted = isOurs(m)
  info = { content, text, textOnly, compacted, chars: compacted || !textOnly ? 0 : codePoints(text), memId: null }
  infoCache.set(m, info)
  return info
}

// tool_call_id -> { name, args } from the AIMessages.
function toolCallIndex(messages) {
  const index = new Map()
  for (const m of messages) {
    if (!isAI(m) || !Array.isArray(m.tool_calls)) continue
    for (const call of m.tool_calls) if (call && call.id) index.set(call.id, call)
  }
  return index
}

// A ToolMessage as the record cache records it (core/record-cache.js).
function resultOf(m, info, call) {
  return { callId: m.tool_call_id, toolName: m.name || (call && call.name) || 'unknown_tool', text: info.text, args: callArgs(call) }
}

module.exports = { resultOf, markOurs, isOurs, adoptAsOurs, msgType, isTool, isAI, contentText, infoOf, toolCallIndex }
