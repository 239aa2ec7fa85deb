'use strict'
// The compaction policy: which tool results the model sees compacted, and
// where the cache breakpoints go. A pure function of the message list, the
// options and the size of what precedes the messages in a request; no
// ledger, no I/O. docs/compaction.md states the rules in plain words, and
// docs/context-economics.md the measurements behind every default.
//
// 1. Offers. A result is offered once the model has read it (`compactAfter`
//    'seen': an AIMessage follows it; 'turn': a HumanMessage; 'arrival': at
//    once), a result up to `sizeChars` once it is older than `windowCalls`
//    calls. The last `keepLastN` results, and a result the model's messages
//    of the last `quotedCalls` calls quote (quotes.js), wait. A result whose
//    note would save less than its own size is never offered; a result over
//    `evictChars` is compacted from first sight.
// 2. Worth it. An offered result is compacted when what it takes out of the
//    later calls (the horizon: `horizonCalls`, or with 'auto' the calls made
//    so far, at least MIN_HORIZON) beats the recalls it is expected to cause:
//    a recall is one more model call reading the whole prompt, and its
//    answer. How many grows with the distinctive tokens of the result the
//    conversation has not used yet (what a later message could need from
//    it), doubles when the model has quoted the result, and is scaled by how
//    often this conversation has recalled against that expectation. A result
//    not worth it stays in full for good: each result is decided once.
// 3. The rewrite. Compacting rewrites the prompt from the first result
//    compacted on. Offered results are compacted together, the largest batch
//    (a suffix by position) whose saving repays this call's extra cost; at
//    the position the model has just read (marked under breakpoint caching),
//    that cost is about one note written instead of one result read.
// 4. The budget. Both paths are priced call by call with the cache model:
//    the requests as compacted (the recall tool's definition, the recall
//    round-trips and their answers included) and the requests without
//    compaction. A rewrite happens only while the conversation so far, this
//    call included, and the recalls its compacted results may still cause,
//    stay within (1 + `maxExtraCost`) × its cost without compaction (or,
//    when larger, that cost plus the recall tool's definition); or when the
//    next call repays it. A result the budget refuses waits, and joins a
//    later rewrite that pays and fits. Recalls count as they happen, so a
//    conversation that keeps recalling stops compacting.
// 5. Determinism. Every AIMessage in the list is the answer to the call whose
//    input was the list before it, so the rules are replayed over those calls
//    in order: a decision taken at a call depends only on the list up to that
//    call, which every later list shares, so a checkpoint reload decides the
//    same. A compacted result stays compacted. The replay of a list is kept
//    and resumed when the next call's list extends it (the same message
//    objects), so a call costs only its new messages; any other list is
//    replayed from its start.

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
const MIN_HORIZON = 16
// A prefix cache counts whole blocks of 128 tokens (about 512 characters).
const BLOCK_CHARS = { breakpoint: 0, prefix: 512 }
// The recall round-trips a compacted result is expected to cause: NEED_MAX ×
// (1 − e^(−tokens / NEED_TOKENS)) for a result holding `tokens` distinctive
// tokens the conversation has not used yet (a later message can only need
// what it has not written yet), QUOTE_BOOST times that when the model has
// quoted it; a recall answer's note, NOTE_NEED. Each trip asks for
// ANSWERS_PER_TRIP answers of at most RECALL_ANSWER_CHARS, in a call whose
// own message is RECALL_CALL_CHARS. The conversation's own recalls scale
// the estimate, against the recalls expected so far, with CALIBRATION_WEIGHT
// expected recalls of prior, and it is never below the recalls per compacted
// result the conversation has shown (with PRIOR_RESULTS results of none
// first); the chance fades over RISK_CALLS calls.
// (Measured on the recorded conversations: docs/context-economics.md.)
const NEED_MAX = 1.1
const NEED_TOKENS = 25
const QUOTE_BOOST = 2
const NOTE_NEED = 0.05
const ANSWERS_PER_TRIP = 1.5
const RECALL_ANSWER_CHARS = 1500
const RECALL_CALL_CHARS = 200
const CALIBRATION_WEIGHT = 2
const PRIOR_RESULTS = 10
const RISK_CALLS = 20

const NO_ENV = Object.freeze({ toolChars: 0, systemChars: 0, recallToolChars: 0 })

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
 * The replay of the calls of one list: `feed` walks new messages (deciding,
 * and pricing, at each AIMessage the call it answers), `callAt` decides for
 * the call being made. `messages` is the latest list fed; earlier entries are
 * the same objects.
 */
class Replay {
  constructor(o, env) {
    this.o = o
    this.env = env
    this.block = BLOCK_CHARS[o.cacheModel] || 0
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
    this.chars = 0 // their sum over the messages fed
    this.recallsSeen = new Set()
    this.lastAI = -1
    this.lastHuman = -1
    this.elig = 0 // ranked results before the boundary of the current call
    // The budget: what the calls so far cost as compacted (ours) and without compaction (none).
    this.ours = 0
    this.none = 0
    this.fixed = 0 // the part of ours that is the recall tool's definition
    this.noneChars = 0 // messages without compaction: recall calls and answers left out
    this.prevNone = -1 // noneChars of none's last call (-1: no call yet)
    this.lastNone = null // { cost, prevNone } of none's last call, undone if it only recalled
    // Cache entries of ours's earlier requests still a prefix of the next: { len (messages), chars }, by length.
    this.entries = []
    this.prevLen = -1 // messages of ours's last request (-1: no call yet)
    this.changedFrom = Infinity // first message the current call's decisions changed
    this.marks = [] // the marks of the last call decided
    this.trips = 0 // model calls that recalled something
    this.expected = 0 // recalls expected of the results compacted so far
    this.masks = [] // the results compacted as notes or stubs, in order
  }

  // What the decision for the call being made changes: copied, so that the
  // kept replay stays at "everything fed" (the next list decides that call itself).
  fork() {
    const f = Object.create(Replay.prototype)
    Object.assign(f, this)
    f.decisions = new Map(this.decisions)
    f.open = this.open.slice()
    f.size = this.size.slice()
    f.entries = this.entries.slice()
    f.masks = this.masks.slice()
    return f
  }

  horizon(k) {
    return typeof this.o.horizonCalls === 'number' ? this.o.horizonCalls : Math.max(MIN_HORIZON, k)
  }

  boundaryOf(end) {
    const a = this.o.compactAfter
    return a === 'seen' ? this.lastAI : a === 'turn' ? this.lastHuman : end
  }

  // Message i joins the prompt; `none`: it is part of the conversation without compaction too.
  add(i, m, none) {
    const s = promptChars(m)
    this.size[i] = s
    this.chars += s
    if (none) this.noneChars += s
  }

  decide(r, kind) {
    const o = this.o
    this.decisions.set(r.i, kind)
    if (kind === 'mask') {
      this.expected += r.need
      this.masks.push(r)
      r.at = this.call
    }
    const now = kind === 'evict' ? STUB_CHARS + EVICT_OVERHEAD_CHARS + o.evictPreviewChars : r.est
    this.chars += now - this.size[r.i]
    this.size[r.i] = now
    if (r.i < this.changedFrom) this.changedFrom = r.i
  }

  // Characters of the messages before index j, as decided so far (the fed list ends at `end`).
  charsBefore(j, end) {
    let s = this.chars
    for (let x = j; x < end; x++) s -= this.size[x]
    return s
  }

  // ours's request for this call: the recall tool's definition, the tools, the system prompt, the messages.
  prefixChars() {
    const e = this.env
    return e.toolChars + e.recallToolChars + e.systemChars
  }

  /**
   * What ours's request for this call costs when its messages change from
   * index `first` on and `less` characters shorter, the list ending at `end`.
   * `before`: the characters before `first` (when the caller has them).
   */
  oursCost(first, less, end, before) {
    const { cacheWrite: w, cacheRead: rd } = this.o.pricing
    const pre = this.prefixChars()
    const total = pre + this.chars - less
    if (this.prevLen < 0) return w * total
    const lcp = Math.min(first, this.prevLen)
    let cached
    if (this.block === 0) {
      // An entry ends where an earlier request ended, at a mark, or after the tool definitions.
      cached = this.env.toolChars + this.env.recallToolChars
      for (let t = this.entries.length - 1; t >= 0; t--) {
        const e = this.entries[t]
        if (e.len <= lcp) {
          cached = Math.max(cached, pre + e.chars)
          break
        }
      }
    } else {
      const head = lcp >= this.prevLen ? this.entries[this.entries.length - 1].chars : before !== undefined && first <= this.prevLen ? before : this.charsBefore(lcp, end)
      cached = Math.floor((pre + head) / this.block) * this.block
    }
    return rd * cached + w * (total - cached)
  }

  // What the recall tool's definition adds to this call: written once, then read from the cache.
  fixedCost() {
    const { cacheWrite: w, cacheRead: rd } = this.o.pricing
    return (this.prevLen < 0 ? w : rd) * this.env.recallToolChars
  }

  /** What the request without compaction costs for this call. */
  noneCost() {
    const { cacheWrite: w, cacheRead: rd } = this.o.pricing
    const pre = this.env.toolChars + this.env.systemChars
    const total = pre + this.noneChars
    if (this.prevNone < 0) return w * total
    let cached = pre + this.prevNone
    if (this.block > 0) cached = Math.floor(cached / this.block) * this.block
    return rd * cached + w * (total - cached)
  }

  // How likely a compacted result is to be recalled, before this conversation's own record.
  needOf(r) {
    if (r.kind === 'rnote') return NOTE_NEED
    let fresh = 0
    for (const t of this.resultTokens(r)) if (!this.carried.has(t)) fresh++
    return NEED_MAX * (1 - Math.exp(-fresh / NEED_TOKENS))
  }

  // Results offered at call k, `eligCount` ranked results being past its boundary, in index order.
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

  // The decision of call k, whose input ends at `end`.
  decideAt(k, end) {
    const b = this.boundaryOf(end)
    while (this.elig < this.ranked.length && this.ranked[this.elig] < b) this.elig++
    const offers = this.candidatesAt(k, this.elig)
    if (offers.length === 0) return
    const o = this.o
    const { cacheWrite: w, cacheRead: rd } = o.pricing
    const H = this.horizon(k)
    const scale = (this.trips + CALIBRATION_WEIGHT) / (this.expected + CALIBRATION_WEIGHT)
    // And never below the recalls per result compacted this conversation has shown (PRIOR_RESULTS of none first).
    const rate = this.trips / (this.masks.length + PRIOR_RESULTS)
    // A recall: one more call reading this prompt, its message, and the answer in the next prompt.
    const trip = rd * (this.prefixChars() + this.chars) + w * RECALL_CALL_CHARS
    const wants = []
    const settled = new Set()
    for (const r of offers) {
      // Its expected recalls, once, at its first offer: more when the model has quoted it (it works from it).
      if (r.need === undefined) r.need = this.needOf(r) * (this.lastQuote.has(r.i) ? QUOTE_BOOST : 1)
      if (H === Infinity) {
        wants.push(r)
        continue
      }
      // What it saves on the later calls and on this one (its note written instead of it read or written),
      // less the recalls it is expected to cause.
      // (choose() prices this call's part exactly, with what the batch rewrites.)
      const trips = Math.max(r.need * scale, rate)
      r.value = rd * (r.chars - r.est) * H - trips * (trip + ANSWERS_PER_TRIP * w * Math.min(r.chars, RECALL_ANSWER_CHARS))
      if (r.value + (r.i < this.prevLen ? rd : w) * r.chars - w * r.est > 0) wants.push(r)
      else settled.add(r) // not worth it: in full for good
    }
    const batch = this.choose(wants, H, end, k, scale, trip)
    if (batch !== null) for (const r of batch) this.decide(r, r.kind)
    if (batch !== null) for (const r of batch) settled.add(r)
    if (settled.size > 0) this.open = this.open.filter((r) => !settled.has(r))
  }

  // What the recalls a compacted result may still cause are expected to cost.
  riskOf(r, k, scale, trip) {
    const age = r.at === undefined ? 0 : k - r.at
    return r.need * scale * Math.exp(-age / RISK_CALLS) * (trip + ANSWERS_PER_TRIP * this.o.pricing.cacheWrite * Math.min(r.chars, RECALL_ANSWER_CHARS))
  }

  // The largest suffix of `wants` whose rewrite pays this call's extra cost and fits the budget, or null.
  choose(wants, H, end, k, scale, trip) {
    if (wants.length === 0) return null
    const eps = this.o.maxExtraCost
    const base = this.oursCost(Infinity, 0, end)
    // (1 + ε) × none, or none plus the recall tool's definition where that is more (a short conversation).
    const noneNow = this.none + this.noneCost()
    const limit = Math.max((1 + eps) * noneNow, noneNow + this.fixed + this.fixedCost())
    const rd = this.o.pricing.cacheRead
    let reserve = 0
    // The budget keeps room for the recalls the results compacted so far may still cause.
    for (const m of this.masks) reserve += this.riskOf(m, k, scale, trip)
    let value = 0
    let less = 0
    let fresh = true
    let best = -1
    // Characters before wants[t].i, walking down from the end of the list.
    let before = this.chars
    let x = end
    for (let t = wants.length - 1; t >= 0; t--) {
      const r = wants[t]
      value += H === Infinity ? 0 : r.value
      less += this.size[r.i] - r.est
      while (x > r.i) before -= this.size[--x]
      const cost = this.oursCost(r.i, less, end, before)
      const pays = H === Infinity || value >= cost - base
      reserve += this.riskOf(r, k, scale, trip)
      fresh = fresh && r.seen === k - 1
      // Within the budget, the recalls it may still cause included; or, at the freshest position (what
      // the previous call read), repaid by the next call (what it takes out of that call's cached read).
      if (pays && (eps === Infinity || this.ours + cost + reserve <= limit || (fresh && cost - base <= rd * less))) best = t
    }
    return best < 0 ? null : wants.slice(best)
  }

  // Decides call k (its input ends at `end`), prices it both ways, and places its marks.
  callAt(k, end) {
    this.decideAt(k, end)
    const cost = this.oursCost(this.changedFrom, 0, end)
    this.ours += cost
    this.fixed += this.fixedCost()
    const none = this.noneCost()
    this.lastNone = { cost: none, prevNone: this.prevNone }
    this.none += none
    this.prevNone = this.noneChars
    // Entries past the first changed message no longer start any later request.
    while (this.entries.length > 0 && this.entries[this.entries.length - 1].len > this.changedFrom) this.entries.pop()
    this.marks = this.o.marks ? this.placeMarks(end) : []
    for (const j of this.marks) this.insertEntry(j + 1, this.charsBefore(j + 1, end))
    this.insertEntry(end, this.chars)
    this.prevLen = end
    this.changedFrom = Infinity
  }

  insertEntry(len, chars) {
    const es = this.entries
    let t = es.length
    while (t > 0 && es[t - 1].len >= len) t--
    if (t < es.length && es[t].len === len) return
    es.splice(t, 0, { len, chars })
  }

  /**
   * Breakpoint caching: mark the message before the first result the next
   * call offers for the first time, and, when earlier, the message before the
   * first result still undecided. At most two marks.
   */
  placeMarks(end) {
    const nextBoundary = this.o.compactAfter === 'turn' ? this.lastHuman : end
    let elig = this.elig
    while (elig < this.ranked.length && this.ranked[elig] < nextBoundary) elig++
    // The results this call reads are offered at the next: the fresh position, where a rewrite is cheapest.
    const next = this.candidatesAt(this.call + 1, elig)
    const fresh = next.find((r) => r.seen === this.call) || next[0]
    const undecided = new Set(this.open.map((r) => r.i))
    const before = (t) => {
      for (let j = t - 1; j >= 0; j--) if (hasText(this.messages[j]) && !undecided.has(j)) return j
      return -1
    }
    const marks = new Set()
    for (const t of [fresh !== undefined ? fresh.i : end, this.open.length > 0 ? this.open[0].i : end]) {
      const j = before(t)
      if (j >= 0) marks.add(j)
    }
    return [...marks].sort((a, b) => a - b)
  }

  resultTokens(r) {
    if (r.tokens === undefined) r.tokens = messageTokens(this.messages[r.i], infoOf(this.messages[r.i]).text)
    return r.tokens
  }

  // The AIMessage at i answers call k: the results it quotes for the first time.
  quote(m, k) {
    const tokens = messageTokens(m, infoText(m))
    if (this.seenResults.length > 0) {
      // Each fresh token is credited to the latest result holding it, the one the model read it in.
      for (const t of tokens) {
        if (this.carried.has(t)) continue
        for (let j = this.seenResults.length - 1; j >= 0; j--) {
          const r = this.seenResults[j]
          if (this.resultTokens(r).has(t)) {
            this.lastQuote.set(r.i, k)
            break
          }
        }
      }
    }
    for (const t of tokens) this.carried.add(t)
  }

  /** Walks messages[this.n .. messages.length). */
  feed(messages) {
    this.messages = messages
    for (let i = this.n; i < messages.length; i++) {
      const m = messages[i]
      if (isAI(m)) {
        this.callAt(this.call, i)
        let calls = 0
        let recalls = 0
        if (Array.isArray(m.tool_calls)) {
          for (const c of m.tool_calls) {
            if (!c) continue
            calls++
            if (c.id) this.calls.set(c.id, c)
            if (c.name === RECALL_TOOL_NAME) recalls++
          }
        }
        if (recalls > 0) this.trips++
        // A call that only recalled would not have been made without compaction.
        const recallOnly = recalls > 0 && recalls === calls
        if (recallOnly) {
          this.none -= this.lastNone.cost
          this.prevNone = this.lastNone.prevNone
        }
        this.add(i, m, !recallOnly)
        this.lastAI = i
        this.quote(m, this.call)
        this.call++
        continue
      }
      if (isHuman(m)) this.lastHuman = i
      if (!isTool(m)) {
        this.add(i, m, true)
        for (const t of messageTokens(m, infoText(m))) this.carried.add(t)
        continue
      }
      const call = m.tool_call_id ? this.calls.get(m.tool_call_id) : undefined
      this.add(i, m, (m.name || (call || {}).name) !== RECALL_TOOL_NAME)
      if (m.tool_call_id) this.result(m, i, call)
    }
    this.n = messages.length
  }

  // A ToolMessage: ranked, and compactable unless exempt, kept or too small.
  result(m, i, call) {
    const o = this.o
    const name = m.name || (call || {}).name
    const isRecall = name === RECALL_TOOL_NAME
    let pinned = false
    if (isRecall) {
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
    if (info.compacted || !info.textOnly) return
    const t = (name && o.perTool.get(name)) || {}
    const r = { i, rank, seen: this.call, chars: info.chars, large: info.chars > (t.sizeChars ?? o.sizeChars), kind: 'mask', est: 0, tokens: undefined, need: undefined, value: 0 }
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
    k = JSON.stringify([o.cacheModel, o.compactAfter, o.keepLastN, o.sizeChars, o.evictChars, o.evictPreviewChars, o.recallAnswers, o.windowCalls, o.quotedCalls, o.horizonCalls, o.maxExtraCost, o.marks, o.pricing.cacheWrite, o.pricing.cacheRead, [...o.exemptTools].sort(), perTool], (_, v) => (v === Infinity ? 'Infinity' : v))
    policyKeys.set(o, k)
  }
  return `${k}|${env.toolChars}|${env.systemChars}|${env.recallToolChars}`
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
 * What to compact in `messages` for the call about to be made, under the
 * resolved options `o`. `env` (from the middleware): the characters of the
 * request's tool definitions other than the recall tool (`toolChars`), of its
 * system prompt (`systemChars`) and of the recall tool's definition
 * (`recallToolChars`, 0 when the caller binds it), so that the budget prices
 * the requests as the provider sees them.
 * Returns { decisions: Map<index, 'mask' | 'evict' | 'rnote'>, marks: index[], cost: { ours, none } }.
 */
function plan(messages, o, env = NO_ENV) {
  const replay = replayFor(messages, o, env)
  replay.feed(messages)
  const now = replay.fork()
  now.callAt(now.call, messages.length)
  return { decisions: now.decisions, marks: now.marks, cost: { ours: now.ours, none: now.none } }
}

module.exports = { plan, stubEarns }
