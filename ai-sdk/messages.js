'use strict'
// What compaction reads from AI SDK messages (`ModelMessage`, ai 6 and 7
// alike), as the core's plain data (core/conversation.js): the text of a tool
// result's output, an assistant's tool calls, and which parts are ours. One
// plain object per message object, so that the core resumes its replay of a
// list that extends the previous one.

const { callsSize, codePoints, sizeOf } = require('../core/index.js')

const ROLES = { assistant: 'assistant', user: 'user', tool: 'tool', system: 'system' }

// The text of a tool result's output, and whether that text is all of it:
// 'text' and 'json' outputs are (the provider sends json as its JSON text), a
// 'content' output is when all its parts are text; an error or a denial is
// never compacted (its kind must reach the provider as it is).
function outputText(output) {
  if (output == null || typeof output !== 'object') return { text: '', textOnly: false }
  switch (output.type) {
    case 'text':
      return typeof output.value === 'string' ? { text: output.value, textOnly: true } : { text: '', textOnly: false }
    case 'json': {
      let text
      try {
        text = JSON.stringify(output.value)
      } catch {
        text = undefined
      }
      return typeof text === 'string' ? { text, textOnly: true } : { text: '', textOnly: false }
    }
    case 'content': {
      if (!Array.isArray(output.value)) return { text: '', textOnly: false }
      let textOnly = true
      const parts = []
      for (const p of output.value) {
        if (p && p.type === 'text' && typeof p.text === 'string') parts.push(p.text)
        else textOnly = false
      }
      return { text: parts.join(''), textOnly }
    }
    case 'error-text':
      return { text: typeof output.value === 'string' ? output.value : '', textOnly: false }
    default:
      return { text: '', textOnly: false }
  }
}

// The text of a user, assistant or system message's content.
function contentText(content) {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  let text = ''
  for (const p of content) if (p && p.type === 'text' && typeof p.text === 'string') text += p.text
  return text
}

// The tool-result parts of a tool message, in order (a tool message may also
// carry approval responses, which are not results).
const resultParts = (m) => (Array.isArray(m.content) ? m.content.filter((p) => p && p.type === 'tool-result') : [])

/**
 * The plain messages of one AI SDK message: one per tool-result part of a
 * tool message (the core sees each result on its own), else one. Cached per
 * message object; `ours` tells which parts are our stubs and notes. With the
 * user's `countTokens` (`count`), sizes are its tokens × 4 (core/usage.js `sizeOf`).
 */
const charCache = new WeakMap()
const countCaches = new WeakMap() // countTokens -> WeakMap<message, { content, plain }>
function plainOf(m, ours, count) {
  let plainCache = charCache
  if (count !== undefined) {
    plainCache = countCaches.get(count)
    if (plainCache === undefined) countCaches.set(count, (plainCache = new WeakMap()))
  }
  const hit = plainCache.get(m)
  if (hit !== undefined && hit.content === m.content) return hit.plain
  const role = (m && ROLES[m.role]) ?? 'system'
  let plain
  if (role === 'tool') {
    plain = resultParts(m).map((p) => {
      const mine = ours.has(p)
      const { text, textOnly } = mine ? { text: p.output.value, textOnly: true } : outputText(p.output)
      const chars = mine || !textOnly ? 0 : count === undefined ? codePoints(text) : sizeOf(text, count)
      return { role, size: sizeOf(text, count), text, markable: text.length > 0, callId: p.toolCallId, name: p.toolName, chars, textOnly, ours: mine }
    })
  } else {
    const text = contentText(m.content)
    const one = { role, size: sizeOf(text, count), text, markable: text.length > 0 }
    if (role === 'assistant' && Array.isArray(m.content)) {
      one.calls = m.content.filter((p) => p && p.type === 'tool-call').map((p) => ({ id: p.toolCallId, name: p.toolName, args: p.input }))
      one.size += callsSize(one.calls)
    }
    plain = [one]
  }
  plainCache.set(m, { content: m.content, plain })
  return plain
}

module.exports = { outputText, resultParts, plainOf }
