'use strict'
// The rewriting of one step's messages: maps them to the core's plain data,
// records what the plan compacts, and answers a copy of the list with stubs
// (and recall notes) in place of tool-result outputs, and Anthropic cache
// marks in `providerOptions`. The originals stay where the SDK keeps them
// (each step's `response.messages`), which is what recall refills from.
//
// ai 7 carries a step's rewritten messages forward to the next step; ai 6
// passes the originals again. Both come to the same here: every message we
// made maps back to its original (`originalOf`), the plan is made on the
// originals, and the same original with the same rewrite is answered with
// the same message object, so every step sends the same bytes.

const { plan, stubEarns, codePoints, callArgs, resultNote, recallNote, carryUsage } = require('../core/index.js')
const { cacheFor, recordOnce, evictedStub } = require('../core/record-cache.js')
const { plainOf, resultParts } = require('./messages.js')

const CACHE_MARK = Object.freeze({ anthropic: Object.freeze({ cacheControl: Object.freeze({ type: 'ephemeral' }) }) })

/** What one toolMemory() keeps across steps: our messages and parts, and the copies it made. */
function stepState() {
  return {
    originalOf: new WeakMap(), // our message -> the original it stands for
    ours: new WeakSet(), // our stub and note parts (known by identity, never by text)
    parts: new WeakMap(), // original part -> Map<variant, our part>
    made: new WeakMap(), // original message -> Map<signature, our message>
  }
}

// The same provider options with Anthropic's cache mark added.
const marked = (providerOptions) => ({ ...(providerOptions || {}), anthropic: { ...((providerOptions && providerOptions.anthropic) || {}), ...CACHE_MARK.anthropic } })

// One tool-result part with its output replaced by `text`, made once per original part and variant.
function ourPart(state, p, variant, text) {
  let byVariant = state.parts.get(p)
  if (byVariant === undefined) state.parts.set(p, (byVariant = new Map()))
  let part = byVariant.get(variant)
  if (part === undefined || part.output.value !== text) {
    part = { ...p, output: { type: 'text', value: text } }
    state.ours.add(part)
    byVariant.set(variant, part)
  }
  return part
}

// The message `m` with `parts` (content index -> { part, variant }) in place
// and, when `mark` is a content index (or -1 for the message), a cache mark
// there: one object per original message and rewrite, so every step sends it alike.
function ourMessage(state, m, parts, mark) {
  const sig = [...parts].map(([i, r]) => `${i}:${r.variant}`).join(',') + `|${mark}`
  let bySig = state.made.get(m)
  if (bySig === undefined) state.made.set(m, (bySig = new Map()))
  const hit = bySig.get(sig)
  if (hit !== undefined && hit.content === m.content && [...parts].every(([i, r]) => hit.parts.get(i) === r.part)) return hit.message
  let message
  if (Array.isArray(m.content)) {
    const content = m.content.slice()
    for (const [i, r] of parts) content[i] = r.part
    if (typeof mark === 'number' && mark >= 0) content[mark] = { ...content[mark], providerOptions: marked(content[mark].providerOptions) }
    message = { ...m, content }
  } else {
    message = { ...m }
  }
  if (mark === -1) message.providerOptions = marked(m.providerOptions)
  state.originalOf.set(message, m)
  bySig.set(sig, { content: m.content, parts: new Map([...parts].map(([i, r]) => [i, r.part])), message })
  return message
}

/**
 * The messages of one step, compacted as the plan decides (a new array; the
 * input is never mutated), and the plan's `answered`: the call the last
 * assistant message answered, priced both ways (for the usage event). `o`: the resolved policy; `env`: the sizes before
 * the messages; `report`: events and warnings; `usageAt(k)`: the usage call k reported (calibration, core/usage.js).
 */
async function compactStep(messages, ledger, o, ns, env, state, report, usageAt = () => undefined) {
  const originals = messages.map((m) => (m !== null && typeof m === 'object' ? (state.originalOf.get(m) ?? m) : m))
  const plain = []
  const where = [] // plain index -> [message index, content index or -1]
  originals.forEach((m, mi) => {
    if (m === null || typeof m !== 'object') return
    const ps = plainOf(m, state.ours, o.countTokens)
    if (m.role === 'tool') {
      const parts = resultParts(m)
      ps.forEach((p, k) => {
        plain.push(p)
        where.push([mi, m.content.indexOf(parts[k])])
      })
    } else {
      plain.push(ps[0])
      where.push([mi, -1])
    }
  })
  const { decisions, marks, answered } = plan(carryUsage(plain, usageAt), o, env)
  const out = originals.slice()
  if (decisions.size === 0 && marks.length === 0) return { messages: out, answered }

  let calls = null
  const callOf = (id) => {
    if (calls === null) {
      calls = new Map()
      for (const p of plain) if (p.calls) for (const c of p.calls) if (c && c.id) calls.set(c.id, c)
    }
    return calls.get(id)
  }
  const cache = cacheFor(ledger)
  const replaced = new Map() // message index -> Map<content index, { part, variant }>
  const put = (j, variant, text) => {
    const [mi, ci] = where[j]
    const part = ourPart(state, originals[mi].content[ci], variant, text)
    if (!replaced.has(mi)) replaced.set(mi, new Map())
    replaced.get(mi).set(ci, { part, variant })
  }
  const events = []
  const compacted = (j, kind, memId, text) => {
    if (o.onEvent === undefined) return
    const p = plain[j]
    events.push([j, { type: 'compacted', kind, toolCallId: p.callId, toolName: toolNameOf(p), memId, namespace: ns, chars: p.chars, compactedChars: codePoints(text) }, `${ns}\0${p.callId}\0${kind}\0${memId}`])
  }
  const toolNameOf = (p) => p.name || (callOf(p.callId) || {}).name || 'unknown_tool'

  const place = async (j, kind, entry) => {
    const p = plain[j]
    if (kind === 'evict') {
      const stub = await evictedStub(ledger, entry, ns, o.evictPreviewChars)
      if (stub === null) return false
      put(j, `evict:${o.evictPreviewChars}`, stub)
      compacted(j, 'evict', entry.memId, stub)
    } else if (stubEarns(p.chars, codePoints(entry.stub))) {
      put(j, 'stub', entry.stub)
      compacted(j, 'stub', entry.memId, entry.stub)
    } else {
      const note = resultNote(toolNameOf(p), p.chars, entry.memId)
      put(j, 'note', note)
      compacted(j, 'note', entry.memId, note)
    }
    return true
  }

  const pending = []
  for (const [j, kind] of decisions) {
    const p = plain[j]
    if (kind === 'rnote') {
      const call = callOf(p.callId)
      const mem = callArgs(call).mem_id
      const note = recallNote(call, p.chars)
      put(j, 'rnote', note)
      compacted(j, 'note', typeof mem === 'string' ? mem : null, note)
      continue
    }
    const key = ns + '\0' + p.callId
    const entry = cache.byCall.get(key)
    if (entry !== undefined && entry.text === p.text) {
      if (await place(j, kind, entry)) continue
      cache.byCall.delete(key)
    }
    const call = callOf(p.callId)
    pending.push(
      recordOnce(ledger, cache, ns, { callId: p.callId, toolName: toolNameOf(p), text: p.text, args: call === undefined ? {} : callArgs(call) })
        .then((e) => place(j, kind, e))
        .catch((err) => {
          // Never fail a step over compaction: the result is sent as it is.
          const reason = String((err && err.message) || err).slice(0, 200)
          report.warn(`record\0${ns}\0${p.callId}`, `@symfonic/core: tool result ${p.callId} (${p.chars} chars) could not be recorded (${reason}); it is sent in full`)
          if (o.onEvent !== undefined) events.push([j, { type: 'recordFailed', toolCallId: p.callId, toolName: toolNameOf(p), namespace: ns, chars: p.chars, error: reason }, `record\0${ns}\0${p.callId}`])
        }),
    )
  }
  if (pending.length > 0) await Promise.all(pending)

  const markAt = new Map() // message index -> content index to mark, or -1
  for (const j of marks) {
    const [mi, ci] = where[j]
    markAt.set(mi, ci)
  }
  for (const mi of new Set([...replaced.keys(), ...markAt.keys()])) {
    const m = originals[mi]
    out[mi] = ourMessage(state, m, replaced.get(mi) || new Map(), markAt.has(mi) ? markAt.get(mi) : null)
  }
  if (events.length > 0) for (const [, e, key] of events.sort((a, b) => a[0] - b[0])) report.event(e, key)
  return { messages: out, answered }
}

module.exports = { stepState, compactStep }
