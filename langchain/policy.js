'use strict'
// The compaction policy: which tool results the model sees compacted, where
// the cache breakpoints go, and whether the recall tool is bound yet. A pure
// function of the message list and the options; no ledger, no I/O.
// docs/compaction.md states the rules in plain words, and
// docs/context-economics.md the measurements behind every default.
//
// 1. Eligibility. A result over `sizeChars` is eligible once the model has
//    answered after it (`compactAfter: 'seen'`; 'turn': once a HumanMessage
//    follows it; 'arrival': at once). Any other result is eligible once it is
//    older than `windowCalls` model calls. The last `keepLastN` results stay
//    in full, and so does a result the model is working from: one its own
//    messages of the last `quotedCalls` calls quote (quotes.js). A result
//    whose note would save less than its own size is never compacted;
//    results over `evictChars` are compacted from first sight.
// 2. When to rewrite. Compacting rewrites the prompt from the first result
//    compacted on, so the cached tokens after it are written again. Eligible
//    results wait, and are batched, until compacting them repays that miss
//    within the horizon, priced with the cache's write and read multipliers:
//      saving = Σ (original − compacted) × read × horizon
//      cost   = Σ (compacted × write − original × read)
//             + cached chars after the first of them × (write − read)
//    The horizon is `horizonCalls`, or with 'auto' the calls the conversation
//    has made so far (a loop that has run N calls is likely to run on). When
//    the recall tool is bound only once something is compacted (the
//    middleware), the first rewrite also pays for the whole prompt written
//    again and the tool's schema on every later call.
// 3. Determinism. Every AIMessage in the list is the answer to the call whose
//    input was the list before it, so the rule is replayed over those calls in
//    order: a decision taken at a call depends only on the list up to that
//    call, which every later list shares. A compacted result stays compacted.

const { isTool, isHuman, isAI, infoOf, promptChars, hasText, toolCallIndex, callArgs } = require('./messages.js')
const { messageTokens } = require('./quotes.js')
const { resultNoteChars } = require('./notes.js')
const { RECALL_TOOL_NAME } = require('./options.js')
// Estimated prompt size of a full stub, of an evicted one's extra lines, and
// of a recall note (characters): the real stub is made by the ledger once the
// result is recorded, after this plan (compact.js picks the form with it).
const STUB_CHARS = 700
const EVICT_OVERHEAD_CHARS = 500
const RECALL_NOTE_CHARS = 200
// A full stub is used where it is at most this fraction of the result
// (compact.js applies the rule to the real stub; the plan to its estimate).
const STUB_EARNS = 8
// Shortest horizon 'auto' assumes, in calls.
const MIN_HORIZON = 4
// The chance that a compacted result is recalled later, before this
// conversation has shown its own (a prior worth PRIOR_WEIGHT results), and
// the size of a recall answer: a recall is one more model call reading the
// whole prompt, and its answer written once.
const PRIOR_TRIP_RATE = 0.2
const PRIOR_RECALL_RATE = 0.2
const PRIOR_WEIGHT = 10
const RECALL_ANSWER_CHARS = 1500

const NO_ENV = Object.freeze({ lateRecall: false, prefixChars: 0, recallToolChars: 0 })

/** Whether a result of `chars` gets its full stub rather than a one-line note. */
const stubEarns = (chars, stubChars) => chars >= STUB_EARNS * stubChars

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
 * Which ToolMessages to compact, where the cache marks go, and whether the
 * recall tool is bound. `env` (from the middleware): `lateRecall` when the
 * tool is bound only once something is compacted, with the characters of the
 * request's prefix (tool definitions and system prompt) and of the tool.
 * Returns { decisions: Map<index, 'mask' | 'evict' | 'rnote'>, marks: index[], recallBound }.
 */
function plan(messages, o, env = NO_ENV) {
  const n = messages.length
  let calls = null
  const callOf = (id) => {
    if (calls === null) calls = toolCallIndex(messages)
    return calls.get(id)
  }
  const { cacheWrite: w, cacheRead: rd } = o.pricing
  const K = o.keepLastN
  const W = o.windowCalls
  const Q = o.quotedCalls
  const decisions = new Map()
  const ranked = [] // results counted by keepLastN, in order
  const open = [] // compactable results not decided yet, in order
  const seenResults = [] // every compactable result, in order
  const lastQuote = new Map() // result index -> latest call whose answer quoted it
  const carried = new Set() // tokens of every system, human and AI message so far
  const size = new Array(n + 1) // prompt chars of each message as decided so far
  const recallsSeen = new Set()
  let bound = !env.lateRecall
  let masked = 0 // results compacted (not evicted) so far
  let recalled = 0 // recall answers so far
  let trips = 0 // model calls that recalled something so far
  let lastAI = -1
  let lastHuman = -1
  let prevEnd = 0
  let elig = 0 // ranked results before the boundary of the current call

  const horizon = (k) => (typeof o.horizonCalls === 'number' ? o.horizonCalls : Math.max(MIN_HORIZON, k))
  const boundaryOf = (end) => (o.compactAfter === 'seen' ? lastAI : o.compactAfter === 'turn' ? lastHuman : end)
  const sizeNow = (j) => {
    if (size[j] === undefined) size[j] = promptChars(messages[j])
    return size[j]
  }
  const decide = (r, kind) => {
    decisions.set(r.i, kind)
    size[r.i] = kind === 'evict' ? STUB_CHARS + EVICT_OVERHEAD_CHARS + o.evictPreviewChars : r.est
    if (kind === 'mask') masked++
    bound = true
  }

  // Results compactable at call k, `eligCount` ranked results being past its boundary, in index order.
  const candidatesAt = (k, eligCount) => {
    const limit = K === Infinity ? 0 : eligCount - K
    const out = []
    for (const r of open) {
      // Ranks grow with the index: past the limit, every later result is kept too.
      if (!(r.rank < limit)) break
      if (!r.large && k - r.seen <= W) continue
      if (Q > 0 && lastQuote.has(r.i) && k - lastQuote.get(r.i) <= Q) continue
      out.push(r)
    }
    return out
  }

  // The largest batch (a suffix of `now`) whose rewrite pays at call k, or null.
  const choose = (now, cachedEnd, k) => {
    if (now.length === 0) return null
    const H = horizon(k)
    if (H === Infinity) return now
    // Prefix sums of the prompt as decided so far, up to the cached end.
    const upTo = Math.min(cachedEnd, n)
    const pre = new Float64Array(upTo + 1)
    for (let j = 0; j < upTo; j++) pre[j + 1] = pre[j] + sizeNow(j)
    // What one recall costs now, and how often this conversation recalls what it compacts.
    const tripRate = (trips + PRIOR_TRIP_RATE * PRIOR_WEIGHT) / (masked + PRIOR_WEIGHT)
    const recallRate = (recalled + PRIOR_RECALL_RATE * PRIOR_WEIGHT) / (masked + PRIOR_WEIGHT)
    const recallCost = tripRate * (env.prefixChars + pre[upTo]) * rd + recallRate * RECALL_ANSWER_CHARS * w
    for (let s = 0; s < now.length; s++) {
      let saving = 0
      let cost = 0
      let inside = 0 // cached chars of the batch after its first member
      for (let t = s; t < now.length; t++) {
        const r = now[t]
        saving += (r.chars - r.est) * rd * H
        const cached = r.i < cachedEnd
        cost += r.est * w - r.chars * (cached ? rd : w)
        if (r.kind === 'mask') cost += recallCost
        if (t > s && cached) inside += sizeNow(r.i)
      }
      const first = now[s].i
      if (first < upTo) cost += (pre[upTo] - pre[first + 1] - inside) * (w - rd)
      if (!bound) {
        cost += (env.prefixChars + pre[Math.min(first, upTo)]) * (w - rd) + env.recallToolChars * (w + rd * H)
      }
      if (saving >= cost) return now.slice(s)
    }
    return null
  }

  // The decision of call k, whose input ends at `end`.
  const decideAt = (k, end) => {
    const b = boundaryOf(end)
    while (elig < ranked.length && ranked[elig] < b) elig++
    const batch = choose(candidatesAt(k, elig), prevEnd, k)
    if (batch === null) return
    for (const r of batch) decide(r, r.kind)
    const done = new Set(batch)
    for (let j = open.length - 1; j >= 0; j--) if (done.has(open[j])) open.splice(j, 1)
  }

  const resultTokens = (r) => (r.tokens ??= messageTokens(messages[r.i], infoOf(messages[r.i]).text))

  // The AIMessage at i answers call k: the open results it quotes for the first time.
  const quote = (m, i, k) => {
    const tokens = messageTokens(m, infoText(m))
    if (Q > 0 && seenResults.length > 0) {
      const fresh = []
      for (const t of tokens) if (!carried.has(t)) fresh.push(t)
      // Each fresh token is credited to the latest result holding it, the one
      // the model read it in; only a result still in full can be kept so.
      for (const t of fresh) {
        for (let j = seenResults.length - 1; j >= 0; j--) {
          const r = seenResults[j]
          if (resultTokens(r).has(t)) {
            if (!decisions.has(r.i)) lastQuote.set(r.i, k)
            break
          }
        }
      }
    }
    for (const t of tokens) carried.add(t)
  }

  let call = 0
  for (let i = 0; i < n; i++) {
    const m = messages[i]
    if (isAI(m)) {
      decideAt(call, i)
      if (Array.isArray(m.tool_calls) && m.tool_calls.some((c) => c && c.name === RECALL_TOOL_NAME)) trips++
      prevEnd = i
      lastAI = i
      quote(m, i, call)
      call++
      continue
    }
    if (isHuman(m)) lastHuman = i
    if (!isTool(m)) {
      if (Q > 0) for (const t of messageTokens(m, infoText(m))) carried.add(t)
      continue
    }
    if (!m.tool_call_id) continue
    const name = m.name || (callOf(m.tool_call_id) || {}).name
    const isRecall = name === RECALL_TOOL_NAME
    if (isRecall) {
      bound = true
      recalled++
    }
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
    const rank = ranked.length
    ranked.push(i)
    const info = infoOf(m)
    if (info.compacted) bound = true
    if (info.compacted || !info.textOnly) continue
    const t = (name && o.perTool.get(name)) || {}
    const sizeChars = t.sizeChars ?? o.sizeChars
    const evictChars = t.evictChars ?? o.evictChars
    const r = { i, rank, seen: call, chars: info.chars, large: info.chars > sizeChars, kind: 'mask', est: 0 }
    if (isRecall && o.recallAnswers === 'note') {
      if (pinned) continue
      r.kind = 'rnote'
      r.est = RECALL_NOTE_CHARS
    } else if (info.chars > evictChars) {
      decide(r, 'evict')
      continue
    } else {
      r.est = stubEarns(info.chars, STUB_CHARS) ? STUB_CHARS : resultNoteChars(name || 'unknown_tool', info.chars)
    }
    // Compacting must save at least what the note or stub adds.
    if (info.chars < 2 * r.est) continue
    open.push(r)
    seenResults.push(r)
  }
  decideAt(call, n)

  // The next call: the model's answer to this one ends its input at n, so
  // under 'seen' every result here is seen by then.
  const nextBoundary = o.compactAfter === 'turn' ? lastHuman : n
  const marks = o.marks ? placeMarks(messages, { open, n, call, candidatesAt, choose, nextBoundary, elig, ranked }) : []
  return { decisions, marks, recallBound: bound }
}

const infoText = (m) => {
  const c = m && m.content
  if (typeof c === 'string') return c
  if (!Array.isArray(c)) return ''
  return c.map((b) => (typeof b === 'string' ? b : b && b.type === 'text' && typeof b.text === 'string' ? b.text : '')).join('')
}

/**
 * Breakpoint caching: mark the message that ends what the next call will not
 * change (before the first result it will compact, or the last message when
 * it compacts nothing), and, when earlier, the message before the first result
 * a later call may still compact. At most two marks.
 */
function placeMarks(messages, s) {
  const { open, n, call, candidatesAt, choose, ranked, nextBoundary } = s
  const undecided = new Set(open.map((r) => r.i))
  let elig = s.elig
  while (elig < ranked.length && ranked[elig] < nextBoundary) elig++
  const batch = choose(candidatesAt(call + 1, elig), n, call + 1)
  const nextRewrite = batch !== null ? batch[0].i : n
  const firstUndecided = open.length > 0 ? open[0].i : n
  const before = (t) => {
    for (let j = t - 1; j >= 0; j--) if (hasText(messages[j]) && !undecided.has(j)) return j
    return -1
  }
  const marks = new Set()
  for (const t of [nextRewrite, firstUndecided]) {
    const j = before(t)
    if (j >= 0) marks.add(j)
  }
  return [...marks].sort((a, b2) => a - b2)
}

module.exports = { plan, stubEarns }
