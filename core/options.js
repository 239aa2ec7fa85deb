'use strict'
// The options of compaction: defaults per cache model, and validation that
// fails closed (a misspelled or mistyped option is a TypeError naming the
// function the user called, never a silent default).

const { PRICING } = require('./cache-model.js')
const { fail, isPlainObject, checkKeys, checkCount, checkOneOf, checkBoolean, checkLogger, checkCallback, checkNamespace } = require('../lib/options.js')

const RECALL_TOOL_NAME = 'recall_tool_result'

/**
 * Compaction defaults per prompt-cache style. `npm run bench:context`
 * (benchmark/context*) replays scripted conversations through
 * `compactToolMessages` and picks these numbers; edit them only there.
 * - compactAfter: when a result becomes eligible: 'seen' (the model has
 *   answered after it), 'turn' (a new HumanMessage follows it) or 'arrival'.
 * - keepLastN: most recent eligible results that stay in full.
 * - sizeChars: results this size or smaller are never compacted.
 * - evictChars: results larger than this are stubs from their first appearance.
 * - evictPreviewChars: head preview carried by those stubs.
 * - recallAnswers: how a seen recall answer is carried: 'note' (a short note
 *   naming the mem_id and arguments), 'keep' (in full), 'stub' (recorded).
 * - windowCalls: results of any size older than this many model calls are
 *   compacted (Infinity: only results over sizeChars are).
 * - quotedCalls: a result the model's own messages of the last this many
 *   calls quote stays in full (0: no such exception).
 * - horizonCalls: later calls over which compacting a result must repay its
 *   cache miss and the recalls it is expected to cause; 'auto': as many as
 *   the conversation has made so far.
 * - maxExtraCost: a rewrite happens only while the conversation so far costs
 *   at most (1 + maxExtraCost) × what it would cost without compaction.
 */
const DEFAULTS = {
  // Anthropic-style: cache entries end where earlier requests ended, or at a cache_control mark.
  breakpoint: { compactAfter: 'seen', keepLastN: 0, sizeChars: 4000, evictChars: 80000, evictPreviewChars: 2000, recallAnswers: 'note', windowCalls: 0, quotedCalls: 0, horizonCalls: 'auto', maxExtraCost: 0.01 },
  // OpenAI-style: any shared prefix is cached, in 128-token blocks.
  prefix: { compactAfter: 'seen', keepLastN: 0, sizeChars: 2000, evictChars: 80000, evictPreviewChars: 2000, recallAnswers: 'note', windowCalls: 0, quotedCalls: 1, horizonCalls: 'auto', maxExtraCost: 0.01 },
}

const COMPACT_AFTER = ['seen', 'turn', 'arrival']
const RECALL_ANSWERS = ['note', 'keep', 'stub']
const COMPACT_KEYS = [
  'cacheModel', 'compactAfter', 'keepLastN', 'sizeChars', 'evictChars', 'evictPreviewChars',
  'exemptTools', 'perTool', 'recallAnswers', 'windowCalls', 'quotedCalls', 'horizonCalls', 'maxExtraCost', 'pricing', 'cacheMarks', 'namespace', 'logger', 'onEvent',
]
// toolMemoryMiddleware and toolMemoryPreModelHook take a ledger too.
const TOOL_MEMORY_KEYS = [...COMPACT_KEYS, 'ledger', 'offload', 'recallMaxChars']
const PER_TOOL_KEYS = ['sizeChars', 'evictChars', 'exempt']
const PRICING_KEYS = ['cacheWrite', 'cacheRead']

const has = (o, k) => Object.prototype.hasOwnProperty.call(o, k)

// Results in (evictChars, sizeChars] would be evicted anyway: a sizeChars above evictChars is a mistake.
function checkOrder(fn, where, sizeChars, evictChars) {
  if (sizeChars > evictChars) {
    throw new TypeError(`${fn}: ${where}sizeChars (${sizeChars}) must not exceed ${where}evictChars (${evictChars}); use exempt: true to never compact a tool`)
  }
}

function resolvePricing(fn, pricing, cacheModel) {
  const d = PRICING[cacheModel]
  if (pricing == null) return d
  if (!isPlainObject(pricing)) throw new TypeError(`${fn}: pricing must be an object { cacheWrite?, cacheRead? }`)
  checkKeys(fn, pricing, PRICING_KEYS, 'pricing.')
  const p = { cacheWrite: pricing.cacheWrite ?? d.cacheWrite, cacheRead: pricing.cacheRead ?? d.cacheRead }
  checkCount(fn, 'pricing.cacheWrite', p.cacheWrite, false)
  checkCount(fn, 'pricing.cacheRead', p.cacheRead, false)
  return p
}

function resolvePerTool(fn, perTool) {
  const out = new Map()
  if (perTool == null) return out
  if (!isPlainObject(perTool)) throw new TypeError(`${fn}: perTool must be an object { [toolName]: { sizeChars?, evictChars?, exempt? } }`)
  for (const [name, spec] of Object.entries(perTool)) {
    if (!isPlainObject(spec)) throw new TypeError(`${fn}: perTool.${name} must be an object { sizeChars?, evictChars?, exempt? }`)
    checkKeys(fn, spec, PER_TOOL_KEYS, `perTool.${name}.`)
    const t = {}
    if (spec.sizeChars !== undefined) t.sizeChars = checkCount(fn, `perTool.${name}.sizeChars`, spec.sizeChars, true)
    if (spec.evictChars !== undefined) t.evictChars = checkCount(fn, `perTool.${name}.evictChars`, spec.evictChars, true)
    if (spec.exempt !== undefined) t.exempt = checkBoolean(fn, `perTool.${name}.exempt`, spec.exempt)
    out.set(name, t)
  }
  return out
}

// A number of calls, or 'auto' (offers.js: the calls made so far).
function resolveHorizon(fn, v) {
  if (v === 'auto' || (typeof v === 'number' && v >= 0)) return v
  throw fail(fn, "horizonCalls must be a non-negative number, Infinity or 'auto'", v)
}

// A non-negative fraction, or Infinity (no bound).
function checkFraction(fn, name, v) {
  if (typeof v === 'number' && v >= 0) return v
  throw fail(fn, `${name} must be a non-negative number (0.01: at most 1 % more) or Infinity`, v)
}

const resolveCacheMarks = (fn, v) => (v === undefined ? true : checkBoolean(fn, 'cacheMarks', v))

/**
 * The resolved policy of one cache model. `fn` names the function the user
 * called, for the messages of its TypeErrors; `keys` the options it accepts.
 */
function resolveOptions(options, fn = 'compactToolMessages(messages, ledger, options)', keys = COMPACT_KEYS) {
  const o = options == null ? {} : options
  if (!isPlainObject(o)) throw new TypeError(`${fn}: options must be an object`)
  checkKeys(fn, o, keys)
  const cacheModel = o.cacheModel ?? 'prefix'
  if (typeof cacheModel !== 'string' || !has(DEFAULTS, cacheModel)) {
    throw new TypeError(`${fn}: cacheModel must be 'breakpoint' or 'prefix', got ${String(cacheModel)}`)
  }
  const d = DEFAULTS[cacheModel]
  if (o.exemptTools != null && (!Array.isArray(o.exemptTools) || o.exemptTools.some((t) => typeof t !== 'string'))) {
    throw new TypeError(`${fn}: exemptTools must be an array of tool names`)
  }
  const exempt = new Set(o.exemptTools ?? [])
  const perTool = resolvePerTool(fn, o.perTool)
  for (const [name, t] of perTool) if (t.exempt === true) exempt.add(name)
  const sizeChars = checkCount(fn, 'sizeChars', o.sizeChars ?? d.sizeChars, true)
  const evictChars = checkCount(fn, 'evictChars', o.evictChars ?? d.evictChars, true)
  checkOrder(fn, '', sizeChars, evictChars)
  for (const [name, t] of perTool) checkOrder(fn, `perTool.${name}.`, t.sizeChars ?? sizeChars, t.evictChars ?? evictChars)
  // The middleware and the hook check their own (string or function) namespace and pass none here.
  checkNamespace(fn, o.namespace, false)
  return {
    cacheModel,
    compactAfter: checkOneOf(fn, 'compactAfter', o.compactAfter ?? d.compactAfter, COMPACT_AFTER),
    keepLastN: checkCount(fn, 'keepLastN', o.keepLastN ?? d.keepLastN, true),
    sizeChars,
    evictChars,
    evictPreviewChars: checkCount(fn, 'evictPreviewChars', o.evictPreviewChars ?? d.evictPreviewChars, false),
    recallAnswers: checkOneOf(fn, 'recallAnswers', o.recallAnswers ?? d.recallAnswers, RECALL_ANSWERS),
    windowCalls: checkCount(fn, 'windowCalls', o.windowCalls ?? d.windowCalls, true),
    quotedCalls: checkCount(fn, 'quotedCalls', o.quotedCalls ?? d.quotedCalls, true),
    horizonCalls: resolveHorizon(fn, o.horizonCalls ?? d.horizonCalls),
    maxExtraCost: checkFraction(fn, 'maxExtraCost', o.maxExtraCost ?? d.maxExtraCost),
    pricing: resolvePricing(fn, o.pricing, cacheModel),
    exemptTools: exempt,
    perTool,
    marks: resolveCacheMarks(fn, o.cacheMarks) && cacheModel === 'breakpoint',
    logger: checkLogger(fn, o.logger),
    onEvent: checkCallback(fn, 'onEvent', o.onEvent),
  }
}

module.exports = { DEFAULTS, RECALL_TOOL_NAME, COMPACT_KEYS, TOOL_MEMORY_KEYS, resolveOptions }
