'use strict'
// Tool-result memory for LangChain.js agents: the `recall_tool_result` tool,
// cache-stable compaction of ToolMessages into ledger stubs, and the two ways
// to plug it in (createAgent middleware, createReactAgent preModelHook).
//
// Compaction rewrites only the copy of the history the model sees; the graph
// state keeps every original, which is what makes recall lossless across
// restarts, replicas and ledger evictions.

const { Ledger, recall, memIdFor } = require('../index.js')
const { ToolMessage } = require('@langchain/core/messages')
const { tool } = require('@langchain/core/tools')
// zod/v4 exists in zod >= 3.25 and in zod 4: the same API (and .meta) either way.
const { z } = require('zod/v4')

/**
 * Compaction defaults per prompt-cache style. `npm run bench:context`
 * (benchmark/context*) replays scripted conversations through
 * `compactToolMessages` and picks these numbers; edit them only there.
 * - keepLastN: most recent tool results (counted before the turn boundary when
 *   settledOnly) that stay in full.
 * - settledOnly: only results from before the last HumanMessage are compacted.
 * - sizeChars: results this size or smaller are never compacted.
 * - evictChars: results larger than this are stubs from their first appearance.
 * - evictPreviewChars: head preview carried by those stubs.
 */
const DEFAULTS = {
  // Anthropic-style: cache entries end where earlier requests ended.
  breakpoint: { keepLastN: 0, settledOnly: true, sizeChars: 8000, evictChars: 80000, evictPreviewChars: 2000 },
  // OpenAI-style: any shared prefix is cached, in 128-token blocks.
  prefix: { keepLastN: 0, settledOnly: true, sizeChars: 8000, evictChars: 80000, evictPreviewChars: 2000 },
}

const RECALL_TOOL_NAME = 'recall_tool_result'
const STUB_HEADER = '[symfonic.tool_memory v1]'
// Longest recall answer the gate expects to pay for (MAX_OUTPUT_CHARS / 4 chars per token).
const MAX_RECALL_TOKENS = 12500
// The JS-side record cache keeps payload references to compare content without
// crossing into Rust; bound it so finished conversations can be collected.
const CACHE_MAX_ENTRIES = 20000
const CACHE_MAX_CHARS = 32 * 1024 * 1024

// ---------------------------------------------------------------------------
// Messages

function msgType(m) {
  if (m == null || typeof m !== 'object') return undefined
  if (typeof m.type === 'string') return m.type
  return typeof m._getType === 'function' ? m._getType() : undefined
}
const isTool = (m) => msgType(m) === 'tool'
const isHuman = (m) => msgType(m) === 'human'
const isAI = (m) => msgType(m) === 'ai'

const HIGH_SURROGATE = /[\uD800-\uDBFF]/
const SURROGATE_PAIR = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g

// Length in code points, as the ledger counts. The regex scan is several times
// faster than a charCodeAt loop on megabyte payloads, and most have no pairs.
function codePoints(s) {
  if (!HIGH_SURROGATE.test(s)) return s.length
  const pairs = s.match(SURROGATE_PAIR)
  return s.length - (pairs === null ? 0 : pairs.length)
}

// What compaction needs to know about one ToolMessage object, computed once.
// Keyed by the message object; `content` guards against in-place edits.
const infoCache = new WeakMap()

function infoOf(m) {
  const content = m.content
  let info = infoCache.get(m)
  if (info !== undefined && info.content === content) return info
  let text = ''
  let textOnly = true
  if (typeof content === 'string') text = content
  else if (Array.isArray(content)) {
    const parts = []
    for (const block of content) {
      if (typeof block === 'string') parts.push(block)
      else if (block && block.type === 'text' && typeof block.text === 'string') parts.push(block.text)
      else textOnly = false // images and other blocks cannot be recalled as text: never compact
    }
    text = parts.join('')
  } else textOnly = false
  const tm = m.response_metadata && m.response_metadata.tool_memory
  const compacted = Boolean(tm && tm.compacted === true) || text.startsWith(STUB_HEADER)
  info = { content, text, textOnly, compacted, chars: compacted || !textOnly ? 0 : codePoints(text), memId: null }
  infoCache.set(m, info)
  return info
}

// tool_call_id -> { name, args } from the AIMessages, built only when needed.
function toolCallIndex(messages) {
  const index = new Map()
  for (const m of messages) {
    if (!isAI(m) || !Array.isArray(m.tool_calls)) continue
    for (const call of m.tool_calls) if (call && call.id) index.set(call.id, call)
  }
  return index
}

// ---------------------------------------------------------------------------
// Options

function checkCount(name, v, allowInfinity) {
  if (typeof v !== 'number' || Number.isNaN(v) || v < 0 || (!allowInfinity && !Number.isFinite(v))) {
    throw new TypeError(`${name} must be a non-negative number${allowInfinity ? ' or Infinity' : ''}, got ${String(v)}`)
  }
  return v
}

function resolveGate(gate) {
  if (gate == null || gate === false) return null
  if (typeof gate !== 'object') throw new TypeError('gate must be an object { inputPricePerMTok, horizonTurns?, recallProbability? }')
  const g = {
    inputPricePerMTok: gate.inputPricePerMTok,
    horizonTurns: gate.horizonTurns ?? 5,
    recallProbability: gate.recallProbability ?? 0.5,
    cacheReadRatio: gate.cacheReadRatio ?? 1,
  }
  checkCount('gate.horizonTurns', g.horizonTurns, false)
  checkCount('gate.cacheReadRatio', g.cacheReadRatio, false)
  if (!(g.recallProbability >= 0 && g.recallProbability <= 1)) throw new TypeError('gate.recallProbability must be between 0 and 1')
  return g
}

function resolveOptions(options) {
  const o = options == null ? {} : options
  if (typeof o !== 'object') throw new TypeError('options must be an object')
  const cacheModel = o.cacheModel ?? 'prefix'
  if (!Object.prototype.hasOwnProperty.call(DEFAULTS, cacheModel)) {
    throw new TypeError(`cacheModel must be 'breakpoint' or 'prefix', got ${String(cacheModel)}`)
  }
  const d = DEFAULTS[cacheModel]
  if (o.exemptTools != null && !Array.isArray(o.exemptTools)) throw new TypeError('exemptTools must be an array of tool names')
  // A given list replaces the default; keep recall_tool_result in it unless recall answers may be compacted too.
  const exempt = new Set((o.exemptTools ?? [RECALL_TOOL_NAME]).map(String))
  return {
    cacheModel,
    keepLastN: checkCount('keepLastN', o.keepLastN ?? d.keepLastN, true),
    sizeChars: checkCount('sizeChars', o.sizeChars ?? d.sizeChars, true),
    evictChars: checkCount('evictChars', o.evictChars ?? d.evictChars, true),
    evictPreviewChars: checkCount('evictPreviewChars', o.evictPreviewChars ?? d.evictPreviewChars, false),
    settledOnly: Boolean(o.settledOnly ?? d.settledOnly),
    exemptTools: exempt,
    gate: resolveGate(o.gate),
  }
}

/**
 * The cost gate (reference: symfonic-core 9.12): offloading a medium result
 * pays when carrying it for `horizonTurns` more calls costs more than carrying
 * its stub plus the expected recall hop. Tokens ~ chars / 4. An unknown price
 * never offloads. Depends only on the result, so a decision never flips.
 */
function gateAllows(gate, chars, stubChars) {
  if (gate === null) return true
  const price = gate.inputPricePerMTok
  if (typeof price !== 'number' || !(price > 0) || !Number.isFinite(price)) return false
  const perToken = price / 1e6
  const tokens = Math.ceil(chars / 4)
  const stubTokens = Math.ceil(stubChars / 4)
  const carry = gate.horizonTurns * gate.cacheReadRatio * perToken
  const saving = tokens * carry
  const cost = stubTokens * carry + gate.recallProbability * Math.min(tokens, MAX_RECALL_TOKENS) * perToken
  return saving > cost
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

function namespaceResolver(namespace) {
  if (typeof namespace === 'function') {
    return (config) => {
      const ns = namespace(config ?? {})
      return ns == null ? '' : String(ns)
    }
  }
  if (namespace != null) {
    const ns = String(namespace)
    return () => ns
  }
  return (config) => {
    const id = config && config.configurable ? config.configurable.thread_id : undefined
    return id == null ? '' : String(id)
  }
}

// ---------------------------------------------------------------------------
// The per-ledger cache: what has been recorded, so that a pass over a history
// with nothing new never sends a payload across the JS/Rust boundary again.

const ledgerCaches = new WeakMap()

function cacheFor(ledger) {
  let c = ledgerCaches.get(ledger)
  if (c === undefined) {
    // byCall: `${namespace}\0${tool_call_id}` -> { text, memId, stub, evicted: Map<previewChars, stub> },
    //   oldest dropped first past CACHE_MAX_ENTRIES / CACHE_MAX_CHARS (a miss only costs a re-record).
    // out: original message -> { content, ns, variant, stubChars, message }: its compacted ToolMessage.
    c = { byCall: new Map(), chars: 0, out: new WeakMap() }
    ledgerCaches.set(ledger, c)
  }
  return c
}

function remember(cache, key, entry) {
  const old = cache.byCall.get(key)
  if (old !== undefined) cache.chars -= old.text.length
  cache.byCall.set(key, entry)
  cache.chars += entry.text.length
  for (const [k, e] of cache.byCall) {
    if (cache.byCall.size <= CACHE_MAX_ENTRIES && cache.chars <= CACHE_MAX_CHARS) break
    if (k === key) continue
    cache.byCall.delete(k)
    cache.chars -= e.text.length
  }
}

async function recordOnce(ledger, cache, ns, m, info, call) {
  const key = ns + '\0' + m.tool_call_id
  const hit = cache.byCall.get(key)
  if (hit !== undefined && hit.text === info.text) return hit
  const handle = await ledger.record({
    toolCallId: m.tool_call_id,
    toolName: m.name || (call && call.name) || 'unknown_tool',
    toolArgs: call && call.args && typeof call.args === 'object' ? call.args : {},
    content: info.text,
    namespace: ns,
  })
  info.memId = handle.memId
  const entry = { text: info.text, memId: handle.memId, stub: handle.stub, evicted: new Map() }
  remember(cache, key, entry)
  return entry
}

function evictedStub(ledger, entry, ns, previewChars) {
  let stub = entry.evicted.get(previewChars)
  if (stub === undefined) {
    stub = ledger.stub(entry.memId, ns, { previewChars })
    if (typeof stub !== 'string') return null
    entry.evicted.set(previewChars, stub)
  }
  return stub
}

function compactedMessage(m, stub, memId) {
  const fields = {
    content: stub,
    tool_call_id: m.tool_call_id,
    additional_kwargs: { ...(m.additional_kwargs || {}) },
    response_metadata: { ...(m.response_metadata || {}), tool_memory: { memId, compacted: true } },
  }
  if (m.name !== undefined) fields.name = m.name
  if (m.id !== undefined) fields.id = m.id
  if (m.status !== undefined) fields.status = m.status
  if (m.artifact !== undefined) fields.artifact = m.artifact
  if (m.metadata !== undefined) fields.metadata = m.metadata
  return new ToolMessage(fields)
}

/**
 * Which ToolMessages to compact: a pure function of the list and the options.
 * Returns [index, 'stub' | 'evict'] pairs.
 */
function plan(messages, o) {
  const n = messages.length
  let boundary = n
  if (o.settledOnly) {
    boundary = -1
    for (let i = n - 1; i >= 0; i--) {
      if (isHuman(messages[i])) {
        boundary = i
        break
      }
    }
  }
  let calls = null
  const candidates = []
  let settled = 0
  for (let i = 0; i < n; i++) {
    const m = messages[i]
    if (!isTool(m) || !m.tool_call_id) continue
    let name = m.name
    if (!name) {
      if (calls === null) calls = toolCallIndex(messages)
      const call = calls.get(m.tool_call_id)
      name = call && call.name
    }
    if (name && o.exemptTools.has(name)) continue
    candidates.push(i)
    if (i < boundary) settled++
  }
  const keepFrom = settled - o.keepLastN // settled candidates ranked below this are old enough
  const decisions = []
  for (let r = 0; r < candidates.length; r++) {
    const i = candidates[r]
    const info = infoOf(messages[i])
    if (info.compacted || !info.textOnly) continue
    if (info.chars > o.evictChars) decisions.push([i, 'evict'])
    else if (i < boundary && r < keepFrom && info.chars > o.sizeChars) decisions.push([i, 'stub'])
  }
  return decisions
}

let warnedRecordFailure = false

function warnRecordFailure(m, err) {
  // Never fail a model call over compaction: that result is sent in full.
  if (warnedRecordFailure) return
  warnedRecordFailure = true
  console.warn(`@symfonic/core: tool result ${m.tool_call_id} left uncompacted: ${err && err.message}`)
}

async function compact(messages, ledger, o, ns) {
  const out = messages.slice()
  const decisions = plan(messages, o)
  if (decisions.length === 0) return out
  const cache = cacheFor(ledger)
  let calls = null
  const callOf = (id) => {
    if (calls === null) calls = toolCallIndex(messages)
    return calls.get(id)
  }
  const variant = (kind) => (kind === 'evict' ? o.evictPreviewChars : 0)

  // Sync: false when the ledger lost the entry (LRU) and it must be recorded again.
  const place = (i, kind, entry) => {
    const m = messages[i]
    const info = infoOf(m)
    let stub = entry.stub
    if (kind === 'evict') {
      stub = evictedStub(ledger, entry, ns, o.evictPreviewChars)
      if (stub === null) return false
    }
    const stubChars = codePoints(stub)
    if (kind === 'stub' && o.gate !== null && !gateAllows(o.gate, info.chars, stubChars)) return true
    const message = compactedMessage(m, stub, entry.memId)
    cache.out.set(m, { content: m.content, ns, variant: variant(kind), stubChars, message })
    out[i] = message
    return true
  }

  const pending = []
  for (const [i, kind] of decisions) {
    const m = messages[i]
    // Hot path: this very message object was compacted before; nothing crosses into Rust.
    const prev = cache.out.get(m)
    if (prev !== undefined && prev.content === m.content && prev.ns === ns && prev.variant === variant(kind)) {
      if (kind === 'stub' && o.gate !== null && !gateAllows(o.gate, infoOf(m).chars, prev.stubChars)) continue
      out[i] = prev.message
      continue
    }
    const info = infoOf(m)
    const key = ns + '\0' + m.tool_call_id
    const entry = cache.byCall.get(key)
    if (entry !== undefined && entry.text === info.text) {
      entry.text = info.text // equal content from a reloaded state: share one string from now on
      if (place(i, kind, entry)) continue
      cache.byCall.delete(key)
    }
    pending.push(
      recordOnce(ledger, cache, ns, m, info, callOf(m.tool_call_id))
        .then((e) => {
          if (!place(i, kind, e)) out[i] = compactedMessage(m, e.stub, e.memId)
        })
        .catch((err) => warnRecordFailure(m, err)),
    )
  }
  if (pending.length > 0) await Promise.all(pending)
  return out
}

/**
 * Replace old or oversized tool results by ledger stubs in a copy of `messages`.
 * Never mutates the input; idempotent; a pure function of the list and options.
 */
async function compactToolMessages(messages, ledger, options) {
  if (!Array.isArray(messages)) throw new TypeError('compactToolMessages: messages must be an array of BaseMessage')
  if (ledger == null || typeof ledger.record !== 'function') throw new TypeError('compactToolMessages: ledger must be a Ledger')
  const o = resolveOptions(options)
  const ns = options && options.namespace != null ? String(options.namespace) : ''
  return compact(messages, ledger, o, ns)
}

// ---------------------------------------------------------------------------
// The recall tool

const RECALL_DESCRIPTION = [
  'Re-expand or slice a tool result that was offloaded to memory.',
  'Large tool results in this conversation may appear as stubs starting with',
  `"${STUB_HEADER}" and carrying a mem_id (trm_...), a summary, a schema line and a head preview.`,
  'Answer from the stub when you can. When you need more, prefer the cheapest retrieval that answers your question:',
  '1. format="summary" (default): the stub again, i.e. the summary and structure.',
  '2. A keyed slice, strongly preferred over "full" for large payloads because it returns only what you need:',
  '   json_path="rows.0.price" (a JSON sub-structure; dotted keys, indices, brackets, [*] wildcards),',
  '   query="<substring>" (text windows around the matches),',
  '   offset=<int> with max_chars=<int> (a character range).',
  '3. format="full": only when you really need the whole payload; answers are capped at about 50,000 characters.',
  'Bad ids or paths come back as [tool_memory ...] / [recall: ...] messages you can correct and retry.',
].join('\n')

// Model-facing arguments. The JSON schema the model sees is typed (via meta), but
// parsing accepts any value, so that a wrong type gets a structured answer from
// the tool instead of LangChain throwing a schema exception at the agent.
const anyArg = (jsonSchema) => z.unknown().optional().meta(jsonSchema)
const RECALL_SCHEMA = z
  .object({
    mem_id: anyArg({ type: 'string', description: 'The trm_... identifier from the stub.' }),
    format: anyArg({
      type: 'string',
      enum: ['summary', 'full'],
      description: '"summary" (default) or "full". Ignored when query, offset/max_chars or json_path is given.',
    }),
    query: anyArg({ type: 'string', description: 'Substring to find; returns windows of text around the matches.' }),
    offset: anyArg({ type: 'integer', description: 'Start character of a range read (0-based).' }),
    max_chars: anyArg({ type: 'integer', description: 'Length in characters of a range read starting at offset.' }),
    json_path: anyArg({
      type: 'string',
      description: 'Path into a JSON payload, e.g. "rows.0.price", "rows[-1]", "meta.count", "rows[*].id".',
    }),
  })
  .meta({ required: ['mem_id'] })

function runtimeState(runtime) {
  if (runtime == null || typeof runtime !== 'object') return undefined
  if (runtime.state != null) return runtime.state
  const scratch = runtime.configurable && runtime.configurable.__pregel_scratchpad
  return scratch ? scratch.currentTaskInput : undefined
}

// The ledger does not hold the id (restart, eviction, another replica): find the
// original among the run state's ToolMessages and record it again.
async function refillFromState(ledger, runtime, memId, ns) {
  const state = runtimeState(runtime)
  const messages = Array.isArray(state) ? state : state && state.messages
  if (!Array.isArray(messages)) return false
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]
    if (!isTool(m) || !m.tool_call_id) continue
    const info = infoOf(m)
    if (info.compacted || !info.textOnly) continue
    if (info.memId === null) info.memId = memIdFor(m.tool_call_id, info.text)
    if (info.memId !== memId) continue
    const cache = cacheFor(ledger)
    cache.byCall.delete(ns + '\0' + m.tool_call_id)
    await recordOnce(ledger, cache, ns, m, info, toolCallIndex(messages).get(m.tool_call_id))
    return true
  }
  return false
}

const present = (v) => v !== undefined && v !== null

function shown(v) {
  let s
  try {
    s = JSON.stringify(v)
  } catch {
    s = undefined
  }
  if (typeof s !== 'string') s = String(v)
  return s.length > 40 ? s.slice(0, 40) + '...' : s
}

// Models send numbers as strings now and then: accept "12", refuse "twelve"
// with a message the model can act on (recall alone would ignore it).
function intArg(name, v) {
  if (typeof v === 'number' && Number.isFinite(v)) return Math.trunc(v)
  if (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v)) return Number.parseInt(v, 10)
  throw new ArgError(`${name} must be an integer, got ${shown(v)}`)
}

function strArg(name, v) {
  if (typeof v === 'string') return v
  if (typeof v === 'number' || typeof v === 'boolean') return String(v)
  throw new ArgError(`${name} must be a string, got ${shown(v)}`)
}

class ArgError extends Error {}

/** The `recall_tool_result` tool bound to `ledger`. Never throws. */
function createRecallToolResultTool(ledger, options) {
  if (ledger == null || typeof ledger.fetch !== 'function') {
    throw new TypeError('createRecallToolResultTool: ledger must be a Ledger or an object with fetch()')
  }
  const nsOf = namespaceResolver(options && options.namespace)
  return tool(
    async (input, runtime) => {
      const args = input && typeof input === 'object' ? input : {}
      const memId = args.mem_id
      try {
        const ns = nsOf(runtime)
        const opts = { namespace: ns }
        if (present(args.format)) opts.format = args.format // anything but "full" means summary
        try {
          if (present(args.query)) opts.query = strArg('query', args.query)
          if (present(args.offset)) opts.offset = intArg('offset', args.offset)
          if (present(args.max_chars)) opts.maxChars = intArg('max_chars', args.max_chars)
          if (present(args.json_path)) opts.jsonPath = strArg('json_path', args.json_path)
        } catch (err) {
          if (err instanceof ArgError && typeof memId === 'string' && memId !== '') return `[tool_memory error: ${err.message}]`
          // an invalid mem_id is reported first, by recall
        }
        try {
          if (typeof memId === 'string' && memId !== '' && typeof ledger.handle === 'function' && ledger.handle(memId, ns) == null) {
            await refillFromState(ledger, runtime, memId, ns)
          }
        } catch {
          // a failed refill leaves the answer to what the ledger holds
        }
        return await recall(ledger, memId, opts)
      } catch {
        return `[tool_memory error: ledger fetch failed for ${typeof memId === 'string' ? memId : String(memId)}]`
      }
    },
    { name: RECALL_TOOL_NAME, description: RECALL_DESCRIPTION, schema: RECALL_SCHEMA },
  )
}

// ---------------------------------------------------------------------------
// createAgent middleware and createReactAgent hook

function setup(options) {
  const o = options == null ? {} : options
  if (typeof o !== 'object') throw new TypeError('options must be an object')
  const ledger = o.ledger ?? new Ledger()
  const nsOf = namespaceResolver(o.namespace)
  // Resolve (and validate) both policies up front; the model picks one per call.
  const policies = {
    breakpoint: resolveOptions({ ...o, namespace: undefined, cacheModel: 'breakpoint' }),
    prefix: resolveOptions({ ...o, namespace: undefined, cacheModel: 'prefix' }),
  }
  if (o.cacheModel != null) resolveOptions({ cacheModel: o.cacheModel })
  const recallTool = createRecallToolResultTool(ledger, { namespace: nsOf })
  return { o, ledger, nsOf, policies, recallTool }
}

/** createAgent middleware: the recall tool in every tool list, compaction in wrapModelCall. */
function toolMemoryMiddleware(options) {
  const { createMiddleware } = require('langchain')
  const { o, ledger, nsOf, policies, recallTool } = setup(options)
  return createMiddleware({
    name: 'ToolMemoryMiddleware',
    tools: [recallTool],
    wrapModelCall: async (request, handler) => {
      const policy = policies[o.cacheModel ?? cachedCacheModelFor(request.model)]
      const messages = await compact(request.messages, ledger, policy, nsOf(request.runtime))
      return handler({ ...request, messages })
    },
  })
}

/**
 * createReactAgent preModelHook: answers `{ llmInputMessages }`. Add `hook.tool`
 * (the recall tool bound to the same ledger) to the agent's tools.
 */
function toolMemoryPreModelHook(options) {
  const { o, ledger, nsOf, policies, recallTool } = setup(options)
  const policy = policies[o.cacheModel ?? 'prefix']
  const hook = async (state, config) => {
    const messages = Array.isArray(state) ? state : state.messages
    return { llmInputMessages: await compact(messages, ledger, policy, nsOf(config)) }
  }
  Object.defineProperty(hook, 'tool', { value: recallTool, enumerable: true })
  Object.defineProperty(hook, 'ledger', { value: ledger, enumerable: true })
  return hook
}

module.exports = {
  DEFAULTS,
  RECALL_TOOL_NAME,
  cacheModelFor,
  createRecallToolResultTool,
  compactToolMessages,
  toolMemoryMiddleware,
  toolMemoryPreModelHook,
}
