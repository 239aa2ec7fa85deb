'use strict'
// What the model's own messages quote from tool results. A quote is a
// distinctive token (an identifier with an underscore, a digit or an inner
// capital, or a number of three digits or more) that an AIMessage uses for the
// first time in the conversation and that an earlier tool result holds: the
// model can only have read it there. A result quoted this way is one the
// model is working from, and the policy keeps it in full for a while
// (policy.js). Token sets are computed once per message object.

const WORD = /[A-Za-z0-9_]+/g
// Longest text whose tokens are indexed; larger results are evicted anyway.
const MAX_INDEXED_CHARS = 200000

function distinctive(w) {
  if (w.length < 4) return /^\d{3}$/.test(w)
  if (/^\d+$/.test(w)) return true
  if (w.includes('_')) return /[A-Za-z0-9]/.test(w)
  if (/\d/.test(w) && /[A-Za-z]/.test(w)) return true
  return /[a-z][A-Z]/.test(w)
}

/** The distinctive tokens of a text. */
function tokensOf(text) {
  const out = new Set()
  if (typeof text !== 'string' || text.length === 0) return out
  const s = text.length > MAX_INDEXED_CHARS ? text.slice(0, MAX_INDEXED_CHARS) : text
  for (const m of s.matchAll(WORD)) if (distinctive(m[0])) out.add(m[0])
  return out
}

// Per message object, guarded by its content (a message edited in place is read again).
const cache = new WeakMap()

/** The distinctive tokens of a message: its text, and an AIMessage's tool-call arguments. */
function messageTokens(m, text) {
  if (m === null || typeof m !== 'object') return tokensOf(text)
  const hit = cache.get(m)
  if (hit !== undefined && hit.content === m.content) return hit.tokens
  let t = text
  if (Array.isArray(m.tool_calls) && m.tool_calls.length > 0) {
    try {
      t += '\n' + JSON.stringify(m.tool_calls.map((c) => c && c.args))
    } catch {
      // arguments that cannot be serialised quote nothing
    }
  }
  const tokens = tokensOf(t)
  cache.set(m, { content: m.content, tokens })
  return tokens
}

module.exports = { tokensOf, messageTokens, distinctive }
