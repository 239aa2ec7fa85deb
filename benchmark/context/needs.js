'use strict'
// The needs model of the recorded conversations (docs/context-economics.md,
// "What a recorded model needs"). A fact is a distinctive token: an
// identifier with an underscore, a digit or an inner capital (`_serialize`,
// `HNRK7H`, `TimeDelta`), or a number of three digits or more (a line number,
// an amount), as core/quotes.js defines them. An assistant message *needs* an earlier tool result when it
// uses a fact that appears in that result and in no earlier system, user or
// assistant message: the model can only have read it there. Facts the model
// wrote itself before are carried by its own messages, so each fact is needed
// once, at its first use.

// The package's own notion of a distinctive token (what the policy calls a quote).
const { tokensOf: factsOf } = require('../../core/quotes.js')

const argsText = (calls) => (calls && calls.length ? JSON.stringify(calls.map((c) => c.args)) : '')

/**
 * Needs per assistant message of a recorded list (the form of
 * fixtures/trajectories): Map<assistant index, [{ fact, sources: [tool_call_id] }]>,
 * sources oldest first.
 */
function needsOf(messages) {
  const carried = new Set()
  const byFact = new Map() // fact -> tool_call_ids of the results holding it
  const needs = new Map()
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]
    if (m.role === 'tool') {
      for (const f of factsOf(m.content)) {
        let s = byFact.get(f)
        if (s === undefined) byFact.set(f, (s = []))
        s.push(m.tool_call_id)
      }
      continue
    }
    const own = factsOf(`${m.content || ''}\n${argsText(m.tool_calls)}`)
    if (m.role === 'assistant') {
      const list = []
      for (const f of own) if (!carried.has(f) && byFact.has(f)) list.push({ fact: f, sources: [...byFact.get(f)] })
      if (list.length) needs.set(i, list)
    }
    for (const f of own) carried.add(f)
  }
  return needs
}

module.exports = { factsOf, needsOf }
