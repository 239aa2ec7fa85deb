'use strict'
// LangChain messages as the core's plain data (core/conversation.js): one
// plain object per message object and content, so that the core resumes its
// replay of a list that extends the previous one (the same objects).

const { plan, totals, callsSize, readUsage, sizeOf } = require('../core/index.js')
const { msgType, contentText, infoOf } = require('./messages.js')

const ROLES = { ai: 'assistant', human: 'user', tool: 'tool' }

// Whether a content value can carry a cache mark: it has text (an AIMessage
// that only calls tools has none, and Anthropic refuses an empty text block).
function hasText(c) {
  if (typeof c === 'string') return c.length > 0
  if (!Array.isArray(c)) return false
  return c.some((b) => (typeof b === 'string' ? b.length > 0 : b && b.type === 'text' && typeof b.text === 'string' && b.text.length > 0))
}

// message -> { content, info, plain }; `content` guards against in-place
// edits, `info` against a message adopted as ours since (messages.js). One
// cache per token counter (the `countTokens` option; none: characters).
const plainCaches = new WeakMap()
const charCache = new WeakMap()
const cacheOf = (count) => {
  if (count === undefined) return charCache
  let c = plainCaches.get(count)
  if (c === undefined) plainCaches.set(count, (c = new WeakMap()))
  return c
}

// The model that answered, as the provider named it (each has its own calibration factor).
function modelOf(m) {
  const r = m.response_metadata
  if (r === null || typeof r !== 'object') return ''
  const name = r.model_name ?? r.model ?? r.modelId
  return typeof name === 'string' ? name : ''
}

/** The plain message of a LangChain message (BaseMessage, or a plain object with `type`). */
function plainMessage(m, count) {
  if (m === null || typeof m !== 'object') return { role: 'system', size: 0, text: '', markable: false }
  const role = ROLES[msgType(m)] ?? 'system'
  const info = role === 'tool' ? infoOf(m) : null
  const content = m.content
  const cache = cacheOf(count)
  const hit = cache.get(m)
  if (hit !== undefined && hit.content === content && hit.info === info && hit.plain.role === role) return hit.plain
  const text = info !== null ? info.text : contentText(content).text
  const plain = { role, size: sizeOf(text, count), text, markable: hasText(content) }
  if (role === 'assistant') {
    // LangChain's tool calls are { id, name, args } already: read as they are, lazily.
    const calls = Array.isArray(m.tool_calls) ? m.tool_calls : []
    plain.size += callsSize(calls)
    plain.calls = calls.filter(Boolean)
    plain.usage = readUsage(m.usage_metadata)
    plain.model = modelOf(m)
    // The usage event's estimate of the call, kept by the middleware (middleware.js).
    const r = m.response_metadata
    if (r !== null && typeof r === 'object' && r.tool_memory_usage != null) plain.priced = r.tool_memory_usage
  } else if (info !== null) {
    plain.callId = m.tool_call_id
    plain.name = m.name
    plain.chars = count === undefined || info.chars === 0 ? info.chars : sizeOf(info.text, count)
    // A result of blocks is compacted as text is: its blocks are recorded one by one.
    plain.textOnly = info.textOnly || info.blocks !== null
    plain.size += info.mediaChars
    plain.ours = info.compacted
  }
  cache.set(m, { content, info, plain })
  return plain
}

const plainList = (messages, count) => {
  const plain = new Array(messages.length)
  for (let i = 0; i < messages.length; i++) plain[i] = plainMessage(messages[i], count)
  return plain
}

/** The core's plan (core/plan.js) for a list of LangChain messages. */
const planFor = (messages, o, env) => plan(plainList(messages, o.countTokens), o, env)

/** The core's totals (core/plan.js) for a list of LangChain messages. */
const totalsFor = (messages, o, env) => totals(plainList(messages, o.countTokens), o, env)

module.exports = { plainMessage, planFor, totalsFor, sizeOf }
