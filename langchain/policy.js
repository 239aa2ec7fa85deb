'use strict'
// The compaction policy: which tool results the model sees as stubs, and
// where the cache breakpoints go. A pure function of the message list and the
// options; no ledger, no I/O. docs/context-economics.md explains every rule
// here with the numbers behind it.
//
// The rule, in three parts:
// 1. Eligibility. A result over `sizeChars` becomes eligible once the model
//    has answered after it (`compactAfter: 'seen'`: an AIMessage follows it;
//    all results of one AIMessage's parallel calls become eligible together),
//    or once a new HumanMessage follows it ('turn'), or at once ('arrival');
//    the last `keepLastN` eligible results stay in full. Results over
//    `evictChars` are stubs from first sight.
// 2. When to rewrite. Compacting a result rewrites the prompt from that
//    result on, so the cached tokens after it are written again. Eligible
//    results wait in a batch until compacting them pays within `horizonCalls`
//    later calls, priced with the cache model's write and read multipliers:
//      saving = cleared chars x cacheRead x horizonCalls
//      cost   = stubs x cacheWrite - cleared originals x cacheRead
//             + cached chars after the first of them x (cacheWrite - cacheRead)
//    At the freshest position (the usual case with 'seen') the cost is about
//    zero, so a result is compacted the call after the model read it.
// 3. Determinism. Every AIMessage in the list is the answer to the call whose
//    input was the list before it, so the rule is replayed over those calls
//    in order: a decision taken at a call depends only on the list up to that
//    call, which every later list shares. A compacted result stays compacted
//    and its stub text never changes.

const { isTool, isHuman, isAI, infoOf, promptChars, hasText, toolCallIndex, callArgs } = require('./messages.js')
const { RECALL_TOOL_NAME } = require('./options.js')

// Estimated prompt size of a stub and of a recall note (characters). Only the
// rewrite rule and the gate use them; the estimate keeps `plan` free of the
// ledger (the real stub is 400-900 characters; a note 250-500).
const STUB_CHARS = 700
const EVICT_OVERHEAD_CHARS = 500
const NOTE_CHARS = 300

// Longest recall answer the gate expects to pay for (MAX_OUTPUT_CHARS / 4 chars per token).
const MAX_RECALL_TOKENS = 12500

/**
 * The cost gate (reference: symfonic-core 9.12): offloading a medium result
 * pays when carrying it for `horizonTurns` more calls costs more than carrying
 * its stub plus the expected recall hop. Tokens ~ chars / 4. An unknown price
 * never offloads. Depends only on the result, so a decision never flips.
 */
function gateAllows(gate, chars, stubChars) {
  if (gate === null) return true
  const price = gate.inputPricePerMTok
  if (typeof price !== 'number' || !(price > 0) || !Number.isFinite(price)) return false
  const perToken = price / 1e6
  const tokens = Math.ceil(chars / 4)
  const stubTokens = Math.ceil(stubChars / 4)
  const carry = gate.horizonTurns * gate.cacheReadRatio * perToken
  const saving = tokens * carry
  const cost = stubTokens * carry + gate.recallProbability * Math.min(tokens, MAX_RECALL_TOKENS) * perToken
  return saving > cost
}

// The recall call's arguments, normalised: two recalls with equal keys asked for the same slice.
function recallKey(call) {
  const args = callArgs(call)
  const keys = Object.keys(args).filter((k) => args[k] !== undefined && args[k] !== null).sort()
  try {
    return JSON.stringify(keys.map((k) => [k, args[k]]))
  } catch {
    return null
  }
}

/**
 * Which ToolMessages to compact, and where the cache marks go.
 * Returns { decisions: Map<index, 'stub' | 'evict' | 'note'>, marks: index[] }.
 */
function plan(messages, o) {
  const n = messages.length
  let calls = null
  const callOf = (id) => {
    if (calls === null) calls = toolCallIndex(messages)
    return calls.get(id)
  }
  const decisions = new Map()
  const ranked = [] // results counted by keepLastN, in order
  const cand = new Map() // index -> { kind, chars, stubChars }: compactable once eligible
  const callEnds = [] // the end of each call's input: every AIMessage, then n
  const boundaryAt = new Map() // call end -> index before which results are eligible
  const recallsSeen = new Set()
  let lastAI = -1
  let lastHuman = -1
  const boundary = (d) => (o.compactAfter === 'seen' ? lastAI : o.compactAfter === 'turn' ? lastHuman : d)

  for (let i = 0; i < n; i++) {
    const m = messages[i]
    if (isAI(m)) {
      boundaryAt.set(i, boundary(i))
      callEnds.push(i)
      lastAI = i
      continue
    }
    if (isHuman(m)) {
      lastHuman = i
      continue
    }
    if (!isTool(m) || !m.tool_call_id) continue
    const name = m.name || (callOf(m.tool_call_id) || {}).name
    const isRecall = name === RECALL_TOOL_NAME
    let pinned = false
    if (isRecall) {
      // Loop guard: a recall that repeats an earlier one (the model asked again
      // after its answer became a note) is kept in full from then on.
      const key = recallKey(callOf(m.tool_call_id))
      pinned = key !== null && recallsSeen.has(key)
      if (key !== null) recallsSeen.add(key)
    }
    if (name && o.exemptTools.has(name)) continue
    if (isRecall && o.recallAnswers === 'keep') continue
    ranked.push(i)
    const info = infoOf(m)
    if (info.compacted || !info.textOnly) continue
    const t = (name && o.perTool.get(name)) || {}
    const sizeChars = t.sizeChars ?? o.sizeChars
    const evictChars = t.evictChars ?? o.evictChars
    if (isRecall && o.recallAnswers === 'note') {
      if (!pinned && info.chars > sizeChars) cand.set(i, { kind: 'note', chars: info.chars, stubChars: NOTE_CHARS })
      continue
    }
    if (info.chars > evictChars) decisions.set(i, 'evict')
    else if (info.chars > sizeChars && gateAllows(o.gate, info.chars, STUB_CHARS)) {
      cand.set(i, { kind: 'stub', chars: info.chars, stubChars: STUB_CHARS })
    }
  }
  callEnds.push(n)
  boundaryAt.set(n, boundary(n))

  // Size of message j in the prompt as decided so far.
  const sizeNow = (j) => {
    const kind = decisions.get(j)
    if (kind === undefined) return promptChars(messages[j])
    if (kind === 'evict') return STUB_CHARS + EVICT_OVERHEAD_CHARS + o.evictPreviewChars
    return cand.get(j).stubChars
  }
  const { cacheWrite: w, cacheRead: r } = o.pricing
  const H = o.horizonCalls
  // Does rewriting `batch` (sorted indices) at a call pay? `cachedEnd`: the
  // previous call's input ended there, so what lies before it is cached.
  const pays = (batch, cachedEnd) => {
    if (H === Infinity) return true
    let saving = 0
    let cost = 0
    for (const p of batch) {
      const c = cand.get(p)
      saving += (c.chars - c.stubChars) * r * H
      cost += c.stubChars * w - c.chars * (p < cachedEnd ? r : w)
    }
    let miss = 0
    let b = 1 // batch is in index order
    for (let j = batch[0] + 1; j < cachedEnd; j++) {
      if (b < batch.length && batch[b] === j) b++
      else miss += sizeNow(j)
    }
    cost += miss * (w - r)
    return saving >= cost
  }

  // Replay the calls. `out` counts ranked results that left the keepLastN window.
  const K = o.keepLastN
  let eligible = 0
  let out = 0
  let pending = []
  let prevEnd = 0
  const advance = (b) => {
    while (eligible < ranked.length && ranked[eligible] < b) eligible++
    const target = K === Infinity ? 0 : Math.max(0, eligible - K)
    const joined = []
    for (; out < target; out++) if (cand.has(ranked[out])) joined.push(ranked[out])
    return joined
  }
  for (const d of callEnds) {
    const joined = advance(boundaryAt.get(d))
    if (joined.length > 0) pending = pending.concat(joined)
    if (pending.length > 0 && pays(pending, prevEnd)) {
      for (const p of pending) decisions.set(p, cand.get(p).kind)
      pending = []
    }
    prevEnd = d
  }

  const marks = o.marks ? placeMarks(messages, o, { cand, decisions, pending, ranked, eligible, out, pays, n }) : []
  return { decisions, marks }
}

/**
 * Breakpoint caching: mark the message that ends what the next call will not
 * change (before the first result it will compact, or the last message when
 * it compacts nothing), and, when earlier, the message before the first result
 * a later call may still compact. At most two marks.
 */
function placeMarks(messages, o, s) {
  const { cand, decisions, pending, ranked, n } = s
  const undecided = (j) => cand.has(j) && !decisions.has(j)
  // The next call: the model's answer to this one ends its input at n.
  const nextBoundary = o.compactAfter === 'seen' ? n : o.compactAfter === 'turn' ? -1 : n
  let eligible = s.eligible
  let out = s.out
  if (nextBoundary >= 0) while (eligible < ranked.length && ranked[eligible] < nextBoundary) eligible++
  const target = o.keepLastN === Infinity ? 0 : Math.max(0, eligible - o.keepLastN)
  const batch = [...pending]
  for (; out < target; out++) if (cand.has(ranked[out])) batch.push(ranked[out])
  const nextRewrite = batch.length > 0 && s.pays(batch, n) ? batch[0] : n
  let firstUndecided = n
  for (const j of cand.keys()) {
    if (undecided(j)) {
      firstUndecided = j
      break
    }
  }
  const before = (t) => {
    for (let j = t - 1; j >= 0; j--) if (hasText(messages[j]) && !undecided(j)) return j
    return -1
  }
  const marks = new Set()
  for (const t of [nextRewrite, firstUndecided]) {
    const j = before(t)
    if (j >= 0) marks.add(j)
  }
  return [...marks].sort((a, b) => a - b)
}

module.exports = { plan }
