'use strict'
// The provider's prompt cache: how it is recognised from a chat model (by
// duck typing: LangChain's chat models, a model id string, an AI SDK model's
// modelId), and what its tokens cost relative to the plain input price.
// Compaction prices its decisions with these multipliers (cost.js).

/**
 * Price multipliers per cache model, relative to the plain input price.
 * - breakpoint (Anthropic): cache writes 1.25x, cache reads 0.1x.
 * - prefix (OpenAI-style): no write surcharge, cached reads 0.1x (OpenAI
 *   discounts cached input by 50-90% depending on the model; 0.1x is the
 *   current generation's rate).
 * Only the ratios matter to the rewrite rule, so no input price is needed.
 */
const PRICING = {
  breakpoint: Object.freeze({ cacheWrite: 1.25, cacheRead: 0.1 }),
  prefix: Object.freeze({ cacheWrite: 1, cacheRead: 0.1 }),
}

/** Anthropic chat models (and Claude behind Bedrock/Vertex) cache at breakpoints; others cache prefixes. */
function cacheModelFor(model) {
  if (model == null) return 'prefix'
  if (typeof model === 'string') return /anthropic|claude/i.test(model) ? 'breakpoint' : 'prefix'
  const hints = []
  try {
    if (typeof model._llmType === 'function') hints.push(model._llmType())
    if (typeof model.getName === 'function') hints.push(model.getName())
    if (model.constructor) hints.push(model.constructor.name)
    hints.push(model.model, model.modelName, model.modelId)
    const dc = model._defaultConfig
    if (dc) hints.push(dc.modelProvider, dc.model)
  } catch {
    // a model whose getters throw is simply not recognised
  }
  return hints.some((h) => typeof h === 'string' && /anthropic|claude/i.test(h)) ? 'breakpoint' : 'prefix'
}

const cacheModels = new WeakMap()
function cachedCacheModelFor(model) {
  if (model === null || typeof model !== 'object') return cacheModelFor(model)
  let c = cacheModels.get(model)
  if (c === undefined) {
    c = cacheModelFor(model)
    cacheModels.set(model, c)
  }
  return c
}

module.exports = { PRICING, cacheModelFor, cachedCacheModelFor }
