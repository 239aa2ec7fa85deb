'use strict'
// Expected recalls: how many recall round-trips a compacted result is
// expected to cause, and what they cost. Reads the replay's state
// (replay.js) and returns numbers.
//
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

const { prefixChars } = require('./conversation.js')

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

/** How likely the offered result `r` is to be recalled, before this conversation's own record. */
function needOf(s, r) {
  if (r.kind === 'rnote') return NOTE_NEED
  let fresh = 0
  for (const t of s.resultTokens(r)) if (!s.carried.has(t)) fresh++
  return NEED_MAX * (1 - Math.exp(-fresh / NEED_TOKENS))
}

/** Its expected recalls, taken once at its first offer: more when the model has quoted it (it works from it). */
const firstNeed = (s, r) => needOf(s, r) * (s.lastQuote.has(r.i) ? QUOTE_BOOST : 1)

/**
 * The conversation's own record: `scale` (recalls made against recalls
 * expected) and `rate` (recalls per result compacted, the floor).
 */
function calibration(s) {
  return {
    scale: (s.trips + CALIBRATION_WEIGHT) / (s.expected + CALIBRATION_WEIGHT),
    rate: s.trips / (s.masks.length + PRIOR_RESULTS),
  }
}

/** A recall: one more call reading this prompt, its message, and the answer in the next prompt. */
function tripCost(s) {
  const { cacheWrite: w, cacheRead: rd } = s.o.pricing
  return rd * (prefixChars(s.env) + s.chars) + w * RECALL_CALL_CHARS
}

/**
 * What compacting `r` saves on the later `H` calls, less the `trips` recalls
 * it is expected to cause (each `trip`, and its answers).
 */
function valueOf(r, H, trips, trip, pricing) {
  const { cacheWrite: w, cacheRead: rd } = pricing
  return rd * (r.chars - r.est) * H - trips * (trip + ANSWERS_PER_TRIP * w * Math.min(r.chars, RECALL_ANSWER_CHARS))
}

/** What the recalls a compacted result may still cause at call k are expected to cost. */
function riskOf(r, k, scale, trip, pricing) {
  const age = r.at === undefined ? 0 : k - r.at
  return r.need * scale * Math.exp(-age / RISK_CALLS) * (trip + ANSWERS_PER_TRIP * pricing.cacheWrite * Math.min(r.chars, RECALL_ANSWER_CHARS))
}

module.exports = { firstNeed, calibration, tripCost, valueOf, riskOf }
