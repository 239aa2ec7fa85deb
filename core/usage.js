'use strict'
// What a model call really cost, next to what compaction estimated: the
// provider's usage record read into one shape, the calibration factor that
// turns the estimate's characters into the provider's tokens, the estimate
// of one call both ways, and the cache check. Plain data in and out; the
// replay (replay.js) learns the factor from the usage the messages carry, so
// a reload learns the same. docs/usage.md says what users see.

// Tokens are estimated as characters / CHARS_PER_TOKEN (or the user's
// countTokens, in the same units: 4 × tokens), then multiplied by the factor.
const CHARS_PER_TOKEN = 4
// A report whose ratio to the raw estimate is outside this range does not
// describe the request estimated (LangChain Python's factor of about 200 left
// the system prompt out): it is ignored, and the adapter warns once.
const SANE = Object.freeze({ min: 0.1, max: 10 })
// The factor used stays within this range; each report moves it this far.
const CLAMP = Object.freeze({ min: 0.25, max: 5 })
const SMOOTHING = 0.5
// Requests smaller than this (estimated tokens) teach nothing: framing dominates.
const MIN_LEARN_TOKENS = 200
// A cache read is due when at least this many tokens were cached before
// (the providers' minimum cacheable prefix is 1024 tokens).
const MIN_CACHE_TOKENS = 1024

const { BLOCK_CHARS } = require('./cost.js')
const { prefixChars } = require('./conversation.js')

const count = (v) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined)
const pick = (...vs) => {
  for (const v of vs) if (count(v) !== undefined) return v
  return undefined
}

/**
 * A provider's usage record as { inputTokens, cacheReadTokens,
 * cacheWriteTokens, outputTokens }, or null when it has no input count.
 * Reads LangChain's `usage_metadata` (input_tokens, output_tokens,
 * input_token_details.cache_read / cache_creation), the AI SDK's `usage`
 * (inputTokens, outputTokens, cachedInputTokens or inputTokenDetails
 * .cacheReadTokens / cacheWriteTokens) and the Agents SDK's `Usage`
 * (inputTokens, outputTokens, inputTokensDetails.cached_tokens).
 * `inputTokens` counts the whole input, cached parts included; a cache figure
 * the provider did not report is null.
 */
function readUsage(record) {
  if (record === null || typeof record !== 'object') return null
  try {
    const input = pick(record.input_tokens, record.inputTokens, record.prompt_tokens, record.promptTokens)
    if (input === undefined) return null
    const lc = record.input_token_details
    const ai = record.inputTokenDetails
    // The Agents SDK keeps one details record per request the usage adds up.
    const agents = record.inputTokensDetails
    const agentsRead = Array.isArray(agents) ? (agents.length > 0 ? agents.reduce((a, d) => a + (count(d && d.cached_tokens) ?? 0), 0) : undefined) : agents && agents.cached_tokens
    const read = pick(lc && lc.cache_read, ai && ai.cacheReadTokens, record.cachedInputTokens, agentsRead)
    const write = pick(lc && lc.cache_creation, ai && ai.cacheWriteTokens)
    const output = pick(record.output_tokens, record.outputTokens, record.completion_tokens, record.completionTokens)
    return { inputTokens: input, cacheReadTokens: read ?? null, cacheWriteTokens: write ?? null, outputTokens: output ?? 0 }
  } catch {
    return null // a record whose getters throw reports nothing
  }
}

/**
 * The size of `text` in the core's units: characters, or with the user's
 * `countTokens`, its tokens × CHARS_PER_TOKEN (a counter that fails or
 * answers nonsense counts characters for that text).
 */
function sizeOf(text, count) {
  if (count === undefined) return text.length
  let n
  try {
    n = count(text)
  } catch {
    return text.length
  }
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n * CHARS_PER_TOKEN : text.length
}

/** Estimated tokens of `chars` characters (or countTokens units) at `factor`. */
const tokensOf = (chars, factor) => (chars / CHARS_PER_TOKEN) * factor

/**
 * One report against the estimate of the same request (`chars`, uncalibrated):
 * 'small' (too small to learn from), 'insane' (ignored: the two do not describe
 * the same request) or 'ok', with the ratio observed.
 */
function judge(chars, reportedInput) {
  const raw = tokensOf(chars, 1)
  if (raw < MIN_LEARN_TOKENS) return { verdict: 'small', ratio: raw > 0 ? reportedInput / raw : NaN }
  const ratio = reportedInput / raw
  return { verdict: ratio >= SANE.min && ratio <= SANE.max ? 'ok' : 'insane', ratio }
}

/** The factor after one sane report (`seen`: sane reports before it). */
function nextFactor(factor, seen, ratio) {
  const f = seen === 0 ? ratio : factor + SMOOTHING * (ratio - factor)
  return Math.min(CLAMP.max, Math.max(CLAMP.min, f))
}

/**
 * Call k of the replay `s` (replay.js), priced `cost` as compacted and `none`
 * without: kept as `s.last` (plan.js's `call`) and added to the totals in
 * calibrated tokens. Answers none's share, undone if the call only recalled.
 */
function priceCall(s, k, cost, none) {
  const f = s.factor
  const oursChars = prefixChars(s.env) + s.chars
  const noneChars = s.env.toolChars + s.env.systemChars + s.noneChars
  // What the cache held for this request: cost = read × cached + write × (total − cached).
  const { cacheWrite: w, cacheRead: rd } = s.o.pricing
  const cachedChars = s.prevLen < 0 || w === rd ? 0 : Math.max(0, (w * oursChars - cost) / (w - rd))
  s.last = { index: k, factor: f, ours: { chars: oursChars, cachedChars, cost }, none: { chars: noneChars, cost: none } }
  s.oursTok += tokensOf(cost, f)
  s.oursInTok += tokensOf(oursChars, f)
  s.noneTok += tokensOf(none, f)
  s.noneInTok += tokensOf(noneChars, f)
  return { tok: tokensOf(none, f), inTok: tokensOf(noneChars, f), oursTok: tokensOf(cost, f), oursInTok: tokensOf(oursChars, f) }
}

const isEstimate = (e) => e != null && typeof e.inputTokens === 'number' && Number.isFinite(e.inputTokens) && typeof e.cost === 'number' && Number.isFinite(e.cost)

/**
 * The assistant message `m` carries the usage event's own estimate of the
 * call it answers (`priced`: the request as sent, priced against the
 * thread's earlier ones, request-cost.js): the totals count it instead of
 * the budget's figures (`last`, priceCall's answer), so they add the events
 * up. Decisions never read the totals.
 */
function countPriced(s, m, last, recallOnly) {
  const p = m.priced
  if (p == null || !isEstimate(p.ours) || !isEstimate(p.none)) return
  s.oursTok += p.ours.cost - last.oursTok
  s.oursInTok += p.ours.inputTokens - last.oursInTok
  if (recallOnly) return
  s.noneTok += p.none.cost - last.tok
  s.noneInTok += p.none.inputTokens - last.inTok
}

/**
 * The usage the assistant message `m` reports for the request of `chars` it
 * answers, learned by the replay `s`: the factor of m's model moves, and the
 * next call uses it. A report that cannot describe its request is ignored
 * (the first is kept as `s.insane`, for the adapter's warning).
 */
function learn(s, m, chars) {
  const model = typeof m.model === 'string' ? m.model : ''
  const u = m.usage
  if (u != null && typeof u.inputTokens === 'number') {
    const { verdict, ratio } = judge(chars, u.inputTokens)
    if (verdict === 'insane' && s.insane === null) s.insane = { call: s.call, model, ratio }
    if (verdict === 'ok') {
      const e = s.factors.get(model) || { factor: 1, seen: 0 }
      s.factors.set(model, { factor: nextFactor(e.factor, e.seen, ratio), seen: e.seen + 1 })
    }
  }
  const e = s.factors.get(model)
  const f = e === undefined ? s.factor : e.factor
  if (f === s.factor) return
  s.factor = f
  // Sizes are compared in calibrated units: a prefix cache's 128-token block is 512 / factor characters.
  const b = BLOCK_CHARS[s.o.cacheModel] || 0
  s.block = b === 0 ? 0 : b / f
}

/**
 * The estimate of one call, from the plan's `call` (plan.js): the request
 * as compacted (ours) and without compaction (none), in tokens and in cost
 * (plain-input-token equivalents: cache reads and writes at the pricing's rates).
 */
function estimateOf(call) {
  const f = call.factor
  return {
    none: { inputTokens: tokensOf(call.none.chars, f), cost: tokensOf(call.none.cost, f) },
    ours: { inputTokens: tokensOf(call.ours.chars, f), cost: tokensOf(call.ours.cost, f) },
  }
}

/**
 * Whether the report shows the cache not read where the cache model expected
 * a read: at least MIN_CACHE_TOKENS cached before, and the provider reports
 * no cache read at all. `expected`: the cached tokens the estimate counted,
 * or the call (plan.js's, priced by the budget). Answers the expected cached
 * tokens, or 0.
 */
function cacheMissed(expected, reported) {
  if (reported === null || reported.cacheReadTokens !== 0) return 0
  const tokens = typeof expected === 'number' ? expected : tokensOf(expected.ours.cachedChars, expected.factor)
  return tokens >= MIN_CACHE_TOKENS ? Math.round(tokens) : 0
}

// Plain assistant messages carrying a usage record: one copy per message and record, so plan resumes.
const carried = new WeakMap()

/**
 * `plain` (PlainMessage[]) with its k-th assistant message carrying
 * `usageAt(k)`: { usage (readUsage's), model } or undefined. For adapters
 * whose messages do not carry the provider's usage (the AI SDK, the Agents
 * SDK): they keep each call's report and hand it back here, so the replay
 * learns the factor as it does from LangChain's messages.
 */
function carryUsage(plain, usageAt) {
  let out = plain
  let k = 0
  for (let i = 0; i < plain.length; i++) {
    const p = plain[i]
    if (p.role !== 'assistant') continue
    const u = usageAt(k++)
    if (u == null) continue
    const hit = carried.get(p)
    let copy
    if (hit !== undefined && hit.u === u) copy = hit.copy
    else {
      copy = { ...p, usage: u.usage ?? null, model: typeof u.model === 'string' ? u.model : (p.model ?? '') }
      carried.set(p, { u, copy })
    }
    if (out === plain) out = plain.slice()
    out[i] = copy
  }
  return out
}

/** Thread totals: zero. `add` folds one call in; the replay and the adapters share it. */
function emptyTotals() {
  return {
    modelCalls: 0,
    compactions: 0,
    recalls: 0,
    estimate: { none: { inputTokens: 0, cost: 0 }, ours: { inputTokens: 0, cost: 0 } },
    reported: { calls: 0, inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0 },
    saving: { cost: 0, ratio: 0 },
  }
}

/** Adds a reported usage to totals. */
function addReported(t, r) {
  if (r === null) return
  t.reported.calls++
  t.reported.inputTokens += r.inputTokens
  t.reported.cacheReadTokens += r.cacheReadTokens ?? 0
  t.reported.cacheWriteTokens += r.cacheWriteTokens ?? 0
  t.reported.outputTokens += r.outputTokens
}

/** The saving of totals: none − ours, and that as a fraction of none. */
function withSaving(t) {
  const { none, ours } = t.estimate
  t.saving = { cost: none.cost - ours.cost, ratio: none.cost > 0 ? 1 - ours.cost / none.cost : 0 }
  return t
}

module.exports = { sizeOf, CHARS_PER_TOKEN, SANE, CLAMP, SMOOTHING, MIN_LEARN_TOKENS, MIN_CACHE_TOKENS, readUsage, tokensOf, judge, nextFactor, priceCall, countPriced, learn, estimateOf, cacheMissed, carryUsage, emptyTotals, addReported, withSaving }
