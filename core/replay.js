'use strict'
// The replay of one conversation's calls: the one object that owns the
// policy's state. Every assistant message answers the call whose input was
// the list before it, so the rules are replayed over those calls in order: a
// decision taken at a call depends only on the list up to that call, which
// every later list shares, so a reload decides the same. `feed` walks new
// messages (deciding and pricing, at each assistant message, the call it
// answers); `callAt` decides for the call being made. The rules themselves
// are the pieces beside it: offers.js, recalls.js, budget.js, cost.js,
// marks.js (docs/compaction.md states them in plain words).

const { RECALL_TOOL_NAME } = require('./options.js')
const { recallKey } = require('./call-args.js')
const { messageTokens } = require('./quotes.js')
const { BLOCK_CHARS, charsBefore, oursCost, fixedCost, noneCost } = require('./cost.js')
const { firstNeed, calibration, tripCost, valueOf } = require('./recalls.js')
const { evictedChars, horizon, boundaryOf, offerOf, candidatesAt } = require('./offers.js')
const { choose } = require('./budget.js')
const { placeMarks } = require('./marks.js')
const { priceCall, countPriced, learn } = require('./usage.js')

class Replay {
  /** `o`: resolved options (options.js); `env`: the request's sizes beside the messages (conversation.js). */
  constructor(o, env) {
    this.o = o
    this.env = env
    this.block = BLOCK_CHARS[o.cacheModel] || 0
    // Calibration (usage.js): the factor of each model that answered, learned
    // from the usage its answers report; the call being made uses the factor
    // of the model that answered last. At factor 1 nothing changes.
    this.factors = new Map() // model -> { factor, seen }
    this.factor = 1
    this.insane = null // the first report ignored: { call, model, ratio }
    this.last = null // the last call priced: plan.js's `call`
    // Totals in calibrated tokens (usage.js), for usageTotals.
    this.oursTok = 0
    this.noneTok = 0
    this.oursInTok = 0
    this.noneInTok = 0
    this.recalls = 0
    this.messages = [] // the latest plain list fed
    this.n = 0 // messages fed
    this.call = 0 // the call whose input is being read
    this.calls = new Map() // tool call id -> call, from the assistant messages fed
    this.decisions = new Map()
    this.ranked = [] // results counted by keepLastN, in order
    this.open = [] // compactable results not decided yet, in order
    this.seenResults = [] // every compactable result, in order
    this.lastQuote = new Map() // result index -> latest call whose answer quoted it
    this.carried = new Set() // tokens of every system, user and assistant message so far
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

  // Message i joins the prompt; `none`: it is part of the conversation without compaction too.
  add(i, m, none) {
    const s = m.size
    this.size[i] = s
    this.chars += s
    if (none) this.noneChars += s
  }

  decide(r, kind) {
    this.decisions.set(r.i, kind)
    if (kind === 'mask') {
      this.expected += r.need
      this.masks.push(r)
      r.at = this.call
    }
    const now = kind === 'evict' ? evictedChars(this.o) : r.est
    this.chars += now - this.size[r.i]
    this.size[r.i] = now
    if (r.i < this.changedFrom) this.changedFrom = r.i
  }

  // The decision of call k, whose input ends at `end`: each offered result is
  // worth compacting, or stays in full for good; those worth it go as one batch.
  decideAt(k, end) {
    const b = boundaryOf(this, end)
    while (this.elig < this.ranked.length && this.ranked[this.elig] < b) this.elig++
    const offers = candidatesAt(this, k, this.elig)
    if (offers.length === 0) return
    const o = this.o
    const { cacheWrite: w, cacheRead: rd } = o.pricing
    const H = horizon(o, k)
    const { scale, rate } = calibration(this)
    const trip = tripCost(this)
    const wants = []
    const settled = new Set()
    for (const r of offers) {
      if (r.need === undefined) r.need = firstNeed(this, r)
      if (H === Infinity) {
        wants.push(r)
        continue
      }
      // What it saves on the later calls and on this one (its note written instead of it read or written),
      // less the recalls it is expected to cause (choose() prices this call's part exactly).
      const trips = Math.max(r.need * scale, rate)
      r.value = valueOf(r, H, trips, trip, o.pricing)
      if (r.value + (r.i < this.prevLen ? rd : w) * r.chars - w * r.est > 0) wants.push(r)
      else settled.add(r) // not worth it: in full for good
    }
    const batch = choose(this, wants, H, end, k, scale, trip)
    if (batch !== null) for (const r of batch) this.decide(r, r.kind)
    if (batch !== null) for (const r of batch) settled.add(r)
    if (settled.size > 0) this.open = this.open.filter((r) => !settled.has(r))
  }

  // Decides call k (its input ends at `end`), prices it both ways, and places its marks.
  callAt(k, end) {
    this.decideAt(k, end)
    const cost = oursCost(this, this.changedFrom, 0, end)
    this.ours += cost
    this.fixed += fixedCost(this)
    const none = noneCost(this)
    this.lastNone = { cost: none, prevNone: this.prevNone, ...priceCall(this, k, cost, none) }
    this.none += none
    this.prevNone = this.noneChars
    // Entries past the first changed message no longer start any later request.
    while (this.entries.length > 0 && this.entries[this.entries.length - 1].len > this.changedFrom) this.entries.pop()
    this.marks = this.o.marks ? placeMarks(this, end) : []
    for (const j of this.marks) this.insertEntry(j + 1, charsBefore(this, j + 1, end))
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

  resultTokens(r) {
    if (r.tokens === undefined) r.tokens = messageTokens(this.messages[r.i])
    return r.tokens
  }

  // The assistant message at i answers call k: the results it quotes for the first time.
  quote(m, k) {
    const tokens = messageTokens(m)
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

  /** Walks messages[this.n .. messages.length) of a plain list that extends the one fed so far. */
  feed(messages) {
    this.messages = messages
    for (let i = this.n; i < messages.length; i++) {
      const m = messages[i]
      if (m.role === 'assistant') {
        this.callAt(this.call, i)
        let calls = 0
        let recalls = 0
        if (Array.isArray(m.calls)) {
          for (const c of m.calls) {
            if (!c) continue
            calls++
            if (c.id) this.calls.set(c.id, c)
            if (c.name === RECALL_TOOL_NAME) recalls++
          }
        }
        if (recalls > 0) this.trips++
        this.recalls += recalls
        // A call that only recalled would not have been made without compaction.
        const recallOnly = recalls > 0 && recalls === calls
        if (recallOnly) {
          this.none -= this.lastNone.cost
          this.prevNone = this.lastNone.prevNone
          this.noneTok -= this.lastNone.tok
          this.noneInTok -= this.lastNone.inTok
        }
        countPriced(this, m, this.lastNone, recallOnly)
        learn(this, m, this.last.ours.chars)
        this.add(i, m, !recallOnly)
        this.lastAI = i
        this.quote(m, this.call)
        this.call++
        continue
      }
      if (m.role === 'user') this.lastHuman = i
      if (m.role !== 'tool') {
        this.add(i, m, true)
        for (const t of messageTokens(m)) this.carried.add(t)
        continue
      }
      const call = m.callId ? this.calls.get(m.callId) : undefined
      this.add(i, m, (m.name || (call || {}).name) !== RECALL_TOOL_NAME)
      if (m.callId) this.result(m, i, call)
    }
    this.n = messages.length
  }

  // A tool result: ranked, and offered unless exempt, kept or too small.
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
    const offer = offerOf(o, m, i, rank, this.call, name, isRecall, pinned, this.factor)
    if (offer === null) return
    if (offer.evict) {
      this.decide(offer.r, 'evict')
      return
    }
    this.open.push(offer.r)
    this.seenResults.push(offer.r)
  }
}

module.exports = { Replay }
