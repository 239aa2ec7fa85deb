'use strict'
// Prices recorded model requests under the two prompt-cache models of issue 4,
// with the same function the usage report prices a call with
// (core/request-cost.js `PromptCache`, docs/usage.md).
//
// A request is priced as the provider would see it: the tool definitions
// first, then the system prompt, then the messages. Each of those is one
// "segment" (a string); two requests share a prefix when their leading
// segments are identical, plus the common head of the first pair that differs.
// Tokens are approximated as characters / 4 (what LangChain's own
// countTokensApproximately does); no tokenizer is involved, so absolute
// numbers are estimates, but every strategy is measured with the same ruler.

const { priceRequests, contentText } = require('../../core/request-cost.js')
const { messageTextOf, toolsText, hasCacheMark } = require('../../langchain/request-text.js')

const CHARS_PER_TOKEN = 4
const INPUT_USD_PER_MTOK = 3
const CACHE_MODELS = {
  // Anthropic-style: a cache entry ends where each earlier request ended,
  // after the tool definitions, and at each message an earlier request marked
  // with cache_control; the hit is the longest entry that is a prefix of this
  // request; everything after it is written at 1.25x.
  breakpoint: { write: 1.25, read: 0.1 },
  // OpenAI-style: the longest prefix shared with any earlier request, counted
  // in whole 128-token blocks; the rest is billed at the plain input price.
  prefix: { write: 1, read: 0.1, block: 128 },
}

const textOf = contentText

/** The provider-visible serialisation of one message (a cache mark is not content): the usage report's own. */
const serializeMessage = messageTextOf

const serializeTools = toolsText

/**
 * Prices a list of requests under one cache model with the usage report's
 * ruler (core/request-cost.js). Returns per-call rows and totals: cost in
 * USD, input tokens, cached (read) tokens.
 */
function price(requests, cacheModelName) {
  const cm = CACHE_MODELS[cacheModelName]
  const perToken = INPUT_USD_PER_MTOK / 1e6
  const p = priceRequests(requests, cacheModelName, { cacheWrite: cm.write, cacheRead: cm.read })
  const calls = p.calls.map((c) => ({ tokens: c.tokens, cachedTokens: c.cachedTokens, cost: c.cost * perToken }))
  const total = calls.reduce(
    (a, c) => ({ cost: a.cost + c.cost, tokens: a.tokens + c.tokens, cachedTokens: a.cachedTokens + c.cachedTokens }),
    { cost: 0, tokens: 0, cachedTokens: 0 },
  )
  return { calls, ...total, hitRatio: total.tokens ? total.cachedTokens / total.tokens : 0 }
}

module.exports = {
  CHARS_PER_TOKEN,
  INPUT_USD_PER_MTOK,
  CACHE_MODELS,
  textOf,
  serializeMessage,
  serializeTools,
  hasCacheMark,
  price,
}
