'use strict'
// What compaction reads from LangChain messages: their kind, the text of a
// ToolMessage (computed once per message object), the tool calls of the
// AIMessages, and the size a message takes in a prompt. No ledger here.

// The ledger's stub header (format v2; entries recorded as v1 keep v1 stubs).
const STUB_HEADER = '[symfonic.tool_memory v2]'

function msgType(m) {
  if (m == null || typeof m !== 'object') return undefined
  if (typeof m.type === 'string') return m.type
  return typeof m._getType === 'function' ? m._getType() : undefined
}
const isTool = (m) => msgType(m) === 'tool'
const isHuman = (m) => msgType(m) === 'human'
const isAI = (m) => msgType(m) === 'ai'

const HIGH_SURROGATE = /[\uD800-\uDBFF]/
const SURROGATE_PAIR = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g

// Length in code points, as the ledger counts. The regex scan is several times
// faster than a charCodeAt loop on megabyte payloads, and most have no pairs.
function codePoints(s) {
  if (!HIGH_SURROGATE.test(s)) return s.length
  const pairs = s.match(SURROGATE_PAIR)
  return s.length - (pairs === null ? 0 : pairs.length)
}

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

// Characters a message adds to a prompt (its text, and an AIMessage's tool
// calls as JSON): what the rewrite cost model counts. Cached per object.
const sizeCache = new WeakMap()

function promptChars(m) {
  let s = sizeCache.get(m)
  if (s !== undefined && s.content === m.content) return s.chars
  let chars = contentText(m && m.content).text.length
  if (isAI(m) && Array.isArray(m.tool_calls) && m.tool_calls.length > 0) {
    try {
      chars += JSON.stringify(m.tool_calls.map((c) => ({ id: c && c.id, name: c && c.name, args: c && c.args }))).length
    } catch {
      chars += 100 // arguments that cannot be serialised: a nominal size
    }
  }
  s = { content: m && m.content, chars }
  if (m !== null && typeof m === 'object') sizeCache.set(m, s)
  return chars
}

// Whether a message can carry a cache mark: it has text (an AIMessage that
// only calls tools has none, and Anthropic refuses an empty text block).
function hasText(m) {
  const c = m && m.content
  if (typeof c === 'string') return c.length > 0
  if (!Array.isArray(c)) return false
  return c.some((b) => typeof b === 'string' ? b.length > 0 : b && b.type === 'text' && typeof b.text === 'string' && b.text.length > 0)
}

// A tool call's arguments as a plain snapshot: they come from the model, and
// a Proxy or a throwing getter must not make compaction fail.
function callArgs(call) {
  const out = {}
  try {
    const args = call && call.args
    if (args === null || typeof args !== 'object' || Array.isArray(args)) return out
    for (const k of Object.keys(args)) {
      try {
        out[k] = args[k]
      } catch {
        out[k] = '[unreadable]'
      }
    }
  } catch {
    // keys that cannot be listed: no arguments
  }
  return out
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

module.exports = { STUB_HEADER, markOurs, isOurs, adoptAsOurs, callArgs, msgType, isTool, isHuman, isAI, codePoints, infoOf, promptChars, hasText, toolCallIndex }
