'use strict'
// The offers: which tool results a call may compact. A result is offered
// once the model has read it (`compactAfter`), and once it is older than
// `windowCalls` calls unless it is large; the last `keepLastN` results, and
// a result the model quoted in its last `quotedCalls` calls, wait. A result
// whose note would save less than its own size is never offered; one over
// `evictChars` is compacted at first sight. Reads the replay's state
// (replay.js) and returns values.

const { resultNoteChars } = require('./notes.js')

// Estimated prompt size of a full stub, of an evicted one's extra lines, and
// of a recall note (characters): the real stub is made by the ledger once the
// result is recorded, after the plan (the caller picks the form with it).
const STUB_CHARS = 700
const EVICT_OVERHEAD_CHARS = 500
const RECALL_NOTE_CHARS = 200
// A full stub is used where it is at most this fraction of the result (the
// caller applies the rule to the real stub; the plan to its estimate).
const STUB_EARNS = 8
// Shortest horizon 'auto' assumes, in calls.
const MIN_HORIZON = 16

/** Whether a result of `chars` gets its full stub rather than a one-line note. */
const stubEarns = (chars, stubChars) => chars >= STUB_EARNS * stubChars

/** What an evicted result takes in the prompt (its stub with a head preview). */
const evictedChars = (o) => STUB_CHARS + EVICT_OVERHEAD_CHARS + o.evictPreviewChars

/** The later calls over which compacting at call k must repay itself. */
const horizon = (o, k) => (typeof o.horizonCalls === 'number' ? o.horizonCalls : Math.max(MIN_HORIZON, k))

/** The index before which results count as read, for the call whose input ends at `end`. */
function boundaryOf(s, end) {
  const a = s.o.compactAfter
  return a === 'seen' ? s.lastAI : a === 'turn' ? s.lastHuman : end
}

/**
 * The tool result `m` (at index i, the rank-th ranked result, first read by
 * call `seen`) as an offer: null when it stays in full for good (not text,
 * ours already, a repeated recall, or too small to be worth a note), else
 * { r, evict } where `evict` says it is compacted at once.
 */
function offerOf(o, m, i, rank, seen, name, isRecall, pinned) {
  if (m.ours || !m.textOnly) return null
  const t = (name && o.perTool.get(name)) || {}
  const r = { i, rank, seen, chars: m.chars, large: m.chars > (t.sizeChars ?? o.sizeChars), kind: 'mask', est: 0, tokens: undefined, need: undefined, value: 0 }
  if (isRecall && o.recallAnswers === 'note') {
    if (pinned) return null
    r.kind = 'rnote'
    r.est = RECALL_NOTE_CHARS
  } else if (m.chars > (t.evictChars ?? o.evictChars)) {
    return { r, evict: true }
  } else {
    r.est = stubEarns(m.chars, STUB_CHARS) ? STUB_CHARS : resultNoteChars(name || 'unknown_tool', m.chars)
  }
  // Compacting must save at least what the note or stub adds.
  if (m.chars < 2 * r.est) return null
  return { r, evict: false }
}

/** Results offered at call k, `eligCount` ranked results being past its boundary, in index order. */
function candidatesAt(s, k, eligCount) {
  const { keepLastN: K, windowCalls: W, quotedCalls: Q } = s.o
  const limit = K === Infinity ? 0 : eligCount - K
  const out = []
  for (const r of s.open) {
    // Ranks grow with the index: past the limit, every later result is kept too.
    if (!(r.rank < limit)) break
    if (!r.large && k - r.seen <= W) continue
    if (Q > 0 && s.lastQuote.has(r.i) && k - s.lastQuote.get(r.i) <= Q) continue
    out.push(r)
  }
  return out
}

module.exports = { stubEarns, evictedChars, horizon, boundaryOf, offerOf, candidatesAt }
