'use strict'
// What the model's own messages quote from tool results. A quote is a
// distinctive token (an identifier with an underscore, a digit or an inner
// capital, or a number of three digits or more) that an assistant message
// uses for the first time in the conversation and that an earlier tool result
// holds: the model can only have read it there. A result quoted this way is
// one the model is working from, and the policy keeps it in full for a while
// (offers.js, recalls.js). Token sets are computed once per plain message.

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

// Per plain message (plain messages are never edited: a changed message is a new object).
const cache = new WeakMap()

/** The distinctive tokens of a plain message: its text, and an assistant message's tool-call arguments. */
function messageTokens(m) {
  let tokens = cache.get(m)
  if (tokens !== undefined) return tokens
  let t = m.text
  if (Array.isArray(m.calls) && m.calls.length > 0) {
    try {
      t += '\n' + JSON.stringify(m.calls.map((c) => c.args))
    } catch {
      // arguments that cannot be serialised quote nothing
    }
  }
  tokens = tokensOf(t)
  cache.set(m, tokens)
  return tokens
}

module.exports = { tokensOf, messageTokens, distinctive }
