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
//    Each compacted result adds the cost of the recalls it is expected to
//    cause: a model call reading the whole prompt per recall round-trip, and
//    the answer, at the rates this conversation has shown so far (a prior
//    until it has shown some).
// 3. Determinism. Every AIMessage in the list is the answer to the call whose
//    input was the list before it, so the rule is replayed over those calls in
//    order: a decision taken at a call depends only on the list up to that
//    call, which every later list shares. A compacted result stays compacted.
//    The replay of a list is kept and resumed when the next call's list
//    extends it (the same message objects), so a call costs only its new
//    messages; any other list is replayed from its start.

const { isTool, isHuman, isAI, infoOf, promptChars, hasText, callArgs } = require('./messages.js')
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

const infoText = (m) => {
  const c = m && m.content
  if (typeof c === 'string') return c
  if (!Array.isArray(c)) return ''
  return c.map((b) => (typeof b === 'string' ? b : b && b.type === 'text' && typeof b.text === 'string' ? b.text : '')).join('')
}

/**
 * The replay of the calls of one list: `feed` walks new messages (deciding at
 * each AIMessage for the call it answers), `decideNow` decides for the call
 * being made. `messages` is the latest list fed; earlier entries are the same
 * objects.
 */
class Replay {
  constructor(o, env) {
    this.o = o
    this.env = env
    this.messages = []
    this.n = 0 // messages fed
    this.call = 0 // the call whose input is being read
    this.calls = new Map() // tool_call_id -> call, from the AIMessages fed
    this.decisions = new Map()
    this.ranked = [] // results counted by keepLastN, in order
    this.open = [] // compactable results not decided yet, in order
    this.seenResults = [] // every compactable result, in order
    this.lastQuote = new Map() // result index -> latest call whose answer quoted it
    this.carried = new Set() // tokens of every system, human and AI message so far
    this.size = [] // prompt chars of each message as decided so far
    this.recallsSeen = new Set()
    this.bound = !env.lateRecall
    this.masked = 0 // results compacted (not evicted) so far
    this.recalled = 0 // recall answers so far
    this.trips = 0 // model calls that recalled something so far
    this.lastAI = -1
    this.lastHuman = -1
    this.prevEnd = 0
    this.elig = 0 // ranked results before the boundary of the current call
  }

  // What the decision for the call being made changes: copied, so that the
  // kept replay stays at "everything fed" (the next list decides that call itself).
  fork() {
    const f = Object.create(Replay.prototype)
    Object.assign(f, this)
    f.decisions = new Map(this.decisions)
    f.open = this.open.slice()
    f.size = this.size.slice()
    return f
  }

  horizon(k) {
    return typeof this.o.horizonCalls === 'number' ? this.o.horizonCalls : Math.max(MIN_HORIZON, k)
  }

  boundaryOf(end) {
    const a = this.o.compactAfter
    return a === 'seen' ? this.lastAI : a === 'turn' ? this.lastHuman : end
  }

  sizeNow(j) {
    let s = this.size[j]
    if (s === undefined) s = this.size[j] = promptChars(this.messages[j])
    return s
  }

  decide(r, kind) {
    const o = this.o
    this.decisions.set(r.i, kind)
    this.size[r.i] = kind === 'evict' ? STUB_CHARS + EVICT_OVERHEAD_CHARS + o.evictPreviewChars : r.est
    if (kind === 'mask') this.masked++
    this.bound = true
  }

  // Results compactable at call k, `eligCount` ranked results being past its boundary, in index order.
  candidatesAt(k, eligCount) {
    const { keepLastN: K, windowCalls: W, quotedCalls: Q } = this.o
    const limit = K === Infinity ? 0 : eligCount - K
    const out = []
    for (const r of this.open) {
      // Ranks grow with the index: past the limit, every later result is kept too.
      if (!(r.rank < limit)) break
      if (!r.large && k - r.seen <= W) continue
      if (Q > 0 && this.lastQuote.has(r.i) && k - this.lastQuote.get(r.i) <= Q) continue
      out.push(r)
    }
    return out
  }

  // The largest batch (a suffix of `now`) whose rewrite pays at call k, or null.
  choose(now, cachedEnd, k) {
    if (now.length === 0) return null
    const H = this.horizon(k)
    if (H === Infinity) return now
    const { cacheWrite: w, cacheRead: rd } = this.o.pricing
    const env = this.env
    // Prefix sums of the prompt as decided so far, up to the cached end.
    const upTo = Math.min(cachedEnd, this.messages.length)
    const pre = new Float64Array(upTo + 1)
    for (let j = 0; j < upTo; j++) pre[j + 1] = pre[j] + this.sizeNow(j)
    // What the recalls of one compacted result are expected to cost now.
    const tripRate = (this.trips + PRIOR_TRIP_RATE * PRIOR_WEIGHT) / (this.masked + PRIOR_WEIGHT)
    const recallRate = (this.recalled + PRIOR_RECALL_RATE * PRIOR_WEIGHT) / (this.masked + PRIOR_WEIGHT)
    const recallCost = tripRate * (env.prefixChars + pre[upTo]) * rd + recallRate * RECALL_ANSWER_CHARS * w
    // Suffix sums, so that every candidate batch is priced in one pass.
    let saving = 0
    let members = 0
    let inside = 0 // cached chars of the batch after its first member
    const results = []
    for (let t = now.length - 1; t >= 0; t--) {
      const r = now[t]
      const cached = r.i < cachedEnd
      saving += (r.chars - r.est) * rd * H
      members += r.est * w - r.chars * (cached ? rd : w) + (r.kind === 'mask' ? recallCost : 0)
      let cost = members
      const first = r.i
      if (first < upTo) cost += (pre[upTo] - pre[first + 1] - inside) * (w - rd)
      if (!this.bound) cost += (env.prefixChars + pre[Math.min(first, upTo)]) * (w - rd) + env.recallToolChars * (w + rd * H)
      results.push(saving >= cost)
      if (cached) inside += this.sizeNow(r.i)
    }
    // The first start (the largest batch) that pays.
    for (let s = 0; s < now.length; s++) if (results[now.length - 1 - s]) return now.slice(s)
    return null
  }

  // The decision of call k, whose input ends at `end`.
  decideAt(k, end) {
    const b = this.boundaryOf(end)
    while (this.elig < this.ranked.length && this.ranked[this.elig] < b) this.elig++
    const batch = this.choose(this.candidatesAt(k, this.elig), this.prevEnd, k)
    if (batch === null) return
    for (const r of batch) this.decide(r, r.kind)
    const done = new Set(batch)
    this.open = this.open.filter((r) => !done.has(r))
  }

  resultTokens(r) {
    if (r.tokens === undefined) r.tokens = messageTokens(this.messages[r.i], infoOf(this.messages[r.i]).text)
    return r.tokens
  }

  // The AIMessage at i answers call k: the results it quotes for the first time.
  quote(m, k) {
    const tokens = messageTokens(m, infoText(m))
    if (this.o.quotedCalls > 0 && this.seenResults.length > 0) {
      // Each fresh token is credited to the latest result holding it, the one
      // the model read it in; only a result still in full can be kept so.
      for (const t of tokens) {
        if (this.carried.has(t)) continue
        for (let j = this.seenResults.length - 1; j >= 0; j--) {
          const r = this.seenResults[j]
          if (this.resultTokens(r).has(t)) {
            if (!this.decisions.has(r.i)) this.lastQuote.set(r.i, k)
            break
          }
        }
      }
    }
    for (const t of tokens) this.carried.add(t)
  }

  /** Walks messages[this.n .. messages.length). */
  feed(messages) {
    const o = this.o
    this.messages = messages
    for (let i = this.n; i < messages.length; i++) {
      const m = messages[i]
      if (isAI(m)) {
        this.decideAt(this.call, i)
        if (Array.isArray(m.tool_calls)) {
          for (const c of m.tool_calls) if (c && c.id) this.calls.set(c.id, c)
          if (m.tool_calls.some((c) => c && c.name === RECALL_TOOL_NAME)) this.trips++
        }
        this.prevEnd = i
        this.lastAI = i
        this.quote(m, this.call)
        this.call++
        continue
      }
      if (isHuman(m)) this.lastHuman = i
      if (!isTool(m)) {
        if (o.quotedCalls > 0) for (const t of messageTokens(m, infoText(m))) this.carried.add(t)
        continue
      }
      if (m.tool_call_id) this.result(m, i)
    }
    this.n = messages.length
  }

  // A ToolMessage: ranked, and compactable unless exempt, kept or too small.
  result(m, i) {
    const o = this.o
    const call = this.calls.get(m.tool_call_id)
    const name = m.name || (call || {}).name
    const isRecall = name === RECALL_TOOL_NAME
    let pinned = false
    if (isRecall) {
      this.bound = true
      this.recalled++
      // Loop guard: a recall that repeats an earlier one (the model asked again
      // after its answer became a note) is kept in full from then on.
      const key = recallKey(call)
      pinned = key !== null && this.recallsSeen.has(key)
      if (key !== null) this.recallsSeen.add(key)
    }
    if (name && o.exemptTools.has(name)) return
    if (isRecall && o.recallAnswers === 'keep') return
    const rank = this.ranked.length
    this.ranked.push(i)
    const info = infoOf(m)
    if (info.compacted) this.bound = true
    if (info.compacted || !info.textOnly) return
    const t = (name && o.perTool.get(name)) || {}
    const r = { i, rank, seen: this.call, chars: info.chars, large: info.chars > (t.sizeChars ?? o.sizeChars), kind: 'mask', est: 0, tokens: undefined }
    if (isRecall && o.recallAnswers === 'note') {
      if (pinned) return
      r.kind = 'rnote'
      r.est = RECALL_NOTE_CHARS
    } else if (info.chars > (t.evictChars ?? o.evictChars)) {
      this.decide(r, 'evict')
      return
    } else {
      r.est = stubEarns(info.chars, STUB_CHARS) ? STUB_CHARS : resultNoteChars(name || 'unknown_tool', info.chars)
    }
    // Compacting must save at least what the note or stub adds.
    if (info.chars < 2 * r.est) return
    this.open.push(r)
    this.seenResults.push(r)
  }
}

// Kept replays: first message object -> Map<policy key, { objs, contents, replay }>.
const kept = new WeakMap()
const policyKeys = new WeakMap()

// What the replay depends on, as a string: equal policies share kept replays.
function policyKey(o, env) {
  let k = policyKeys.get(o)
  if (k === undefined) {
    const perTool = [...o.perTool].map(([name, t]) => [name, t.sizeChars, t.evictChars]).sort()
    k = JSON.stringify([o.compactAfter, o.keepLastN, o.sizeChars, o.evictChars, o.evictPreviewChars, o.recallAnswers, o.windowCalls, o.quotedCalls, o.horizonCalls, o.pricing.cacheWrite, o.pricing.cacheRead, [...o.exemptTools].sort(), perTool], (_, v) => (v === Infinity ? 'Infinity' : v))
    policyKeys.set(o, k)
  }
  return `${k}|${env.lateRecall}|${env.prefixChars}|${env.recallToolChars}`
}

// The kept replay of this list's prefix, or a new one.
function replayFor(messages, o, env) {
  const first = messages[0]
  if (first === null || typeof first !== 'object') return new Replay(o, env)
  const key = policyKey(o, env)
  let byKey = kept.get(first)
  if (byKey === undefined) kept.set(first, (byKey = new Map()))
  let e = byKey.get(key)
  let ok = e !== undefined && e.objs.length <= messages.length
  for (let j = 0; ok && j < e.objs.length; j++) ok = messages[j] === e.objs[j] && messages[j].content === e.contents[j]
  if (!ok) {
    e = { objs: [], contents: [], replay: new Replay(o, env) }
    byKey.set(key, e)
  }
  for (let j = e.objs.length; j < messages.length; j++) {
    e.objs.push(messages[j])
    e.contents.push(messages[j] && messages[j].content)
  }
  return e.replay
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
  const replay = replayFor(messages, o, env)
  replay.feed(messages)
  const now = replay.fork()
  now.decideAt(now.call, n)
  // The next call: the model's answer to this one ends its input at n, so
  // under 'seen' every result here is seen by then.
  const marks = o.marks ? placeMarks(messages, now, o.compactAfter === 'turn' ? now.lastHuman : n) : []
  return { decisions: now.decisions, marks, recallBound: now.bound }
}

/**
 * Breakpoint caching: mark the message that ends what the next call will not
 * change (before the first result it will compact, or the last message when
 * it compacts nothing), and, when earlier, the message before the first result
 * a later call may still compact. At most two marks.
 */
function placeMarks(messages, s, nextBoundary) {
  const n = messages.length
  const undecided = new Set(s.open.map((r) => r.i))
  let elig = s.elig
  while (elig < s.ranked.length && s.ranked[elig] < nextBoundary) elig++
  const batch = s.choose(s.candidatesAt(s.call + 1, elig), n, s.call + 1)
  const nextRewrite = batch !== null ? batch[0].i : n
  const firstUndecided = s.open.length > 0 ? s.open[0].i : n
  const before = (t) => {
    for (let j = t - 1; j >= 0; j--) if (hasText(messages[j]) && !undecided.has(j)) return j
    return -1
  }
  const marks = new Set()
  for (const t of [nextRewrite, firstUndecided]) {
    const j = before(t)
    if (j >= 0) marks.add(j)
  }
  return [...marks].sort((a, b) => a - b)
}

module.exports = { plan, stubEarns }
