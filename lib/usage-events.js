'use strict'
// What each model call cost, told to the user, for every adapter: a `usage`
// event per call (the provider's report next to the estimate both ways), a
// warning when a report does not describe the request it answers, and the
// cache check. The figures are the core's (core/usage.js); no framework is
// loaded here (the AI SDK adapter uses it too). docs/usage.md.

const { readUsage, estimateOf, cacheMissed, judge, SANE, RECALL_TOOL_NAME } = require('../core/index.js')
const { threadIdOf } = require('../langchain/namespace.js')

// Anthropic's default cache lifetime: a longer pause is the likeliest cause of a miss.
const TTL_MS = 5 * 60 * 1000
// Per thread, what the previous call sent (system prompt, time): bounded, oldest forgotten first.
const THREADS_LIMIT = 10000

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
     * After a model call: the usage event, the sanity warning, the cache check.
     * `once`: report each call once (the hook sees a call's answer on every later call).
     * `response` is LangChain's AIMessage (or an adapter's record in its shape);
     * `isMarked(message)`: whether a sent message carries a cache mark.
     */
    after({ runtime, ns, policy, call, sent, response, system, once = false, isMarked = hasMark }) {
      if (once && call != null && !report.first(`usage\0${ns}\0${call.index}`)) return
      const prev = remember(ns, system)
      if (call == null) return
      const reported = readUsage(response && response.usage_metadata)
      const threadId = threadIdOf(runtime) ?? null
      if (reported !== null) {
        const j = judge(call.ours.chars, reported.inputTokens)
        if (j.verdict === 'insane') warnInsane(report, j.ratio)
      }
      const estimate = estimateOf(call)
      // A call that only recalled would not have been made without compaction (as the totals count it).
      const calls = response && Array.isArray(response.tool_calls) ? response.tool_calls : []
      if (calls.length > 0 && calls.every((c) => c && c.name === RECALL_TOOL_NAME)) estimate.none = { inputTokens: 0, cost: 0 }
      report.event({ type: 'usage', threadId, namespace: ns, call: call.index, model: modelName(response), factor: call.factor, reported, estimate })
      const expected = cacheMissed(call, reported)
      if (expected > 0) {
        const cause = causeOf(policy, sent, prev, system, isMarked)
        report.warn(`cacheMiss\0${cause}`, `@symfonic/core: the provider read nothing from its prompt cache on call ${call.index} of thread ${threadId ?? ns}, where about ${expected} tokens were due; likely cause: ${CAUSES[cause]}. The budget assumes the cache works (docs/usage.md)`)
        report.event({ type: 'cacheMiss', threadId, namespace: ns, call: call.index, cause, expectedCacheReadTokens: expected, reported })
      }
    },
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

module.exports = { usageTracker, warnInsane }
