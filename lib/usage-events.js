'use strict'
// What each model call cost, told to the user, for every adapter: a `usage`
// event per call (the provider's report next to the estimate both ways), a
// warning when a report does not describe the request it answers, and the
// cache check. The figures are the core's (core/usage.js); no framework is
// loaded here (the AI SDK adapter uses it too). docs/usage.md.

const { readUsage, estimateOf, cacheMissed, judge, SANE, RECALL_TOOL_NAME, PromptCache, sizeOf } = require('../core/index.js')
const { threadIdOf } = require('../langchain/namespace.js')

// Anthropic's default cache lifetime: a longer pause is the likeliest cause of a miss.
const TTL_MS = 5 * 60 * 1000
// Per thread, what the previous call sent (system prompt, time): bounded, oldest forgotten first.
const THREADS_LIMIT = 10000
// Per thread, the requests sent so far (core/request-cost.js), both ways: bounded tighter, as they
// hold about one copy of the thread's text; a thread forgotten prices its next call as if the cache
// were cold. The adapters' own per-thread request texts use the same bound.
const CACHES_LIMIT = 256

const CAUSES = {
  noCacheMarks: 'the request carries no cache_control mark, and Anthropic reads its cache only at marks (cacheMarks: false, and no other middleware marks)',
  systemPromptChanged: 'the system prompt changed since the previous call, and everything after a change is written anew',
  ttlPassed: 'more than 5 minutes passed since the previous call, longer than the cache keeps an entry by default',
  unknown: 'the request looks the same as before: the model may not cache (or caches from a larger minimum), or a proxy strips the cache marks',
}

const hasMark = (m) => m != null && Array.isArray(m.content) && m.content.some((b) => b && typeof b === 'object' && b.cache_control != null)

/**
 * The usage side of one middleware: `after(...)` is called with each model
 * call's plan and response.
 */
function usageTracker(report) {
  const threads = new Map()
  const caches = new Map() // ns \0 cache model -> { ours, none } PromptCaches
  const cachesOf = (ns, policy) => {
    const key = `${ns}\0${policy.cacheModel}`
    let c = caches.get(key)
    caches.delete(key)
    if (c === undefined) {
      const count = policy.countTokens
      const measure = count === undefined ? undefined : (text) => sizeOf(text, count)
      c = { ours: new PromptCache(policy.cacheModel, policy.pricing, measure), none: new PromptCache(policy.cacheModel, policy.pricing, measure) }
    }
    caches.set(key, c)
    if (caches.size > CACHES_LIMIT) caches.delete(caches.keys().next().value)
    return c
  }
  const remember = (ns, system) => {
    const prev = threads.get(ns)
    threads.delete(ns)
    threads.set(ns, { system, at: Date.now() })
    if (threads.size > THREADS_LIMIT) threads.delete(threads.keys().next().value)
    return prev
  }
  const causeOf = (policy, sent, prev, system, isMarked) => {
    if (policy.cacheModel === 'breakpoint' && !sent.some(isMarked)) return 'noCacheMarks'
    if (prev !== undefined && prev.system !== system) return 'systemPromptChanged'
    if (prev !== undefined && Date.now() - prev.at > TTL_MS) return 'ttlPassed'
    return 'unknown'
  }
  return {
    /**
     * After a model call: the usage event, the sanity warning, the cache check;
     * answers the event's estimate (undefined when nothing was reported).
     * `once`: report each call once (the hook sees a call's answer on every later call).
     * `response` is LangChain's AIMessage (or an adapter's record in its shape);
     * `isMarked(message)`: whether a sent message carries a cache mark.
     * `requests`: { ours, none }, the request sent and the same without
     * compaction (core/request-cost.js), priced against the thread's earlier
     * requests; without them the event carries the budget's estimate.
     */
    after({ runtime, ns, policy, call, sent, response, system, once = false, isMarked = hasMark, requests }) {
      if (once && call != null && !report.first(`usage\0${ns}\0${call.index}`)) return
      const prev = remember(ns, system)
      if (call == null) return
      const reported = readUsage(response && response.usage_metadata)
      const threadId = threadIdOf(runtime) ?? null
      if (reported !== null) {
        const j = judge(call.ours.chars, reported.inputTokens)
        if (j.verdict === 'insane') warnInsane(report, j.ratio)
      }
      // A call that only recalled would not have been made without compaction (as the totals count it).
      const calls = response && Array.isArray(response.tool_calls) ? response.tool_calls : []
      const recallOnly = calls.length > 0 && calls.every((c) => c && c.name === RECALL_TOOL_NAME)
      const { estimate, expected } = requests == null ? budgetEstimate(call, reported) : sentEstimate(cachesOf(ns, policy), requests, call.factor, reported, recallOnly)
      if (recallOnly) estimate.none = { inputTokens: 0, cost: 0 }
      report.event({ type: 'usage', threadId, namespace: ns, call: call.index, model: modelName(response), factor: call.factor, reported, estimate })
      if (expected > 0) {
        const cause = causeOf(policy, sent, prev, system, isMarked)
        report.warn(`cacheMiss\0${cause}`, `@symfonic/core: the provider read nothing from its prompt cache on call ${call.index} of thread ${threadId ?? ns}, where about ${expected} tokens were due; likely cause: ${CAUSES[cause]}. The budget assumes the cache works (docs/usage.md)`)
        report.event({ type: 'cacheMiss', threadId, namespace: ns, call: call.index, cause, expectedCacheReadTokens: expected, reported })
      }
      return estimate
    },
  }
}

/** The budget's estimate of the call (cost.js), and the cache reads it expected where the report shows none. */
const budgetEstimate = (call, reported) => ({ estimate: estimateOf(call), expected: cacheMissed(call, reported) })

/**
 * The requests as sent, priced against the thread's earlier ones (the ruler
 * `npm run bench:context` prices with), in tokens calibrated by `factor`; then
 * remembered (none's only when the call would have been made without compaction).
 */
function sentEstimate(c, requests, factor, reported, recallOnly) {
  const ours = c.ours.price(requests.ours)
  const none = c.none.price(requests.none)
  c.ours.add(requests.ours)
  if (!recallOnly) c.none.add(requests.none)
  return {
    estimate: { none: { inputTokens: none.tokens * factor, cost: none.cost * factor }, ours: { inputTokens: ours.tokens * factor, cost: ours.cost * factor } },
    expected: cacheMissed(ours.cachedTokens * factor, reported),
  }
}

/** A usage report `ratio` × the estimate of its request (characters / 4): ignored, said once. */
function warnInsane(report, ratio) {
  report.warn(
    'usageInsane',
    `@symfonic/core: a provider reported ${ratio.toFixed(2)} × the input tokens estimated for the request it answered (characters / 4; sane: ${SANE.min}–${SANE.max}): ` +
      'the two cannot describe the same request (a proxy adding its own prompt, or usage summed over calls), so such reports are ignored and thresholds stay where they were (docs/usage.md)',
  )
}

function modelName(response) {
  const r = response && response.response_metadata
  const name = r && (r.model_name ?? r.model)
  return typeof name === 'string' ? name : null
}

module.exports = { usageTracker, warnInsane, CACHES_LIMIT }
