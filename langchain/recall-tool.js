'use strict'
// The `recall_tool_result` tool: the model's way back to a compacted result.
// It answers through `recall` (structured `[tool_memory …]` / `[recall: …]`
// messages, never an exception) and, when the ledger misses an id (restart,
// eviction, another replica), refills it from the run state's originals.

const { recall, memIdFor } = require('../index.js')
const { tool } = require('@langchain/core/tools')
// zod/v4 exists in zod >= 3.25 and in zod 4: the same API (and .meta) either way.
const { z } = require('zod/v4')
const { STUB_HEADER, isTool, infoOf, toolCallIndex, codePoints } = require('./messages.js')
const { checkLedger, optionsObject } = require('../lib/options.js')
const { RECALL_TOOL_NAME, namespaceResolver } = require('./options.js')
const { cacheFor, recordOnce } = require('./compact.js')

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
  'A recall answer you have already read may later appear as a short note naming its arguments; call again with the same arguments if you need it.',
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
// original among the run state's ToolMessages and record it again. Content-bound,
// as `record` is: the candidate must hash to the id, and when two different
// results in the state do (a collision, which a tool's output could be crafted
// to cause), neither is served. Answers 'refilled', 'collision' or 'absent'.
async function refillFromState(ledger, runtime, memId, ns) {
  const state = runtimeState(runtime)
  const messages = Array.isArray(state) ? state : state && state.messages
  if (!Array.isArray(messages)) return 'absent'
  const found = candidateFor(messages, memId, memIdFor)
  if (found === null || found === 'collision') return found === null ? 'absent' : found
  const cache = cacheFor(ledger)
  cache.byCall.delete(ns + '\0' + found.m.tool_call_id)
  await recordOnce(ledger, cache, ns, found.m, found.info, toolCallIndex(messages).get(found.m.tool_call_id))
  return 'refilled'
}

// The one original in `messages` whose id (`hash(toolCallId, text)`) is
// `memId`: null when none is, 'collision' when two different results are.
function candidateFor(messages, memId, hash) {
  let found = null
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]
    if (!isTool(m) || !m.tool_call_id) continue
    const info = infoOf(m)
    if (info.compacted || !info.textOnly) continue
    const id = hash === memIdFor ? (info.memId ??= memIdFor(m.tool_call_id, info.text)) : hash(m.tool_call_id, info.text)
    if (id !== memId) continue
    if (found === null) found = { m, info }
    else if (found.info.text !== info.text || found.m.tool_call_id !== m.tool_call_id) return 'collision'
  }
  return found
}

const present = (v) => v !== undefined && v !== null

function shown(v) {
  if (typeof v === 'number') return String(v) // NaN and Infinity, which JSON would print as null
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

// What a recall asked for, for the `recalled` event.
function sliceOf(opts) {
  if (opts.jsonPath !== undefined) return 'json_path'
  if (opts.query !== undefined) return 'query'
  if (opts.offset !== undefined || opts.maxChars !== undefined) return 'range'
  return opts.format === 'full' ? 'full' : 'summary'
}

const isErrorAnswer = (t) => /^\[(tool_memory (error|not found)|recall: )/.test(t)

/**
 * The `recall_tool_result` tool bound to `ledger`. Never throws. `fn` names
 * the public function the user called, for its TypeErrors; `report` is the
 * middleware's reporter (events), when there is one.
 */
function createRecallToolResultTool(ledger, options, fn = 'createRecallToolResultTool(ledger, options)', report = null) {
  checkLedger(fn, ledger, ['fetch'])
  const o = optionsObject(fn, options, ['namespace'])
  if (o.namespace != null && typeof o.namespace !== 'string' && typeof o.namespace !== 'function') {
    throw new TypeError(`${fn}: namespace must be a string or a function of the run config, got ${typeof o.namespace}`)
  }
  const nsOf = namespaceResolver(o.namespace)
  const answered = (memId, ns, opts, text, refilled) => {
    if (report !== null) {
      report.event({ type: 'recalled', memId: typeof memId === 'string' ? memId : String(memId), namespace: ns, slice: sliceOf(opts), chars: codePoints(text), refilled, error: isErrorAnswer(text) })
    }
    return text
  }
  return tool(
    async (input, runtime) => {
      const args = input && typeof input === 'object' ? input : {}
      const memId = args.mem_id
      let ns = ''
      const opts = {}
      try {
        ns = nsOf(runtime)
        opts.namespace = ns
        if (present(args.format)) opts.format = args.format // anything but "full" means summary
        try {
          if (present(args.query)) opts.query = strArg('query', args.query)
          if (present(args.offset)) opts.offset = intArg('offset', args.offset)
          if (present(args.max_chars)) opts.maxChars = intArg('max_chars', args.max_chars)
          if (present(args.json_path)) opts.jsonPath = strArg('json_path', args.json_path)
        } catch (err) {
          if (err instanceof ArgError && typeof memId === 'string' && memId !== '') return answered(memId, ns, opts, `[tool_memory error: ${err.message}]`, false)
          // an invalid mem_id is reported first, by recall
        }
        let refilled = false
        try {
          if (typeof memId === 'string' && memId !== '' && typeof ledger.handle === 'function' && ledger.handle(memId, { namespace: ns }) == null) {
            const outcome = await refillFromState(ledger, runtime, memId, ns)
            if (outcome === 'collision') {
              return answered(memId, ns, opts, `[tool_memory error: ${memId} matches two different results in this conversation (an id collision); refusing to guess which one]`, false)
            }
            refilled = outcome === 'refilled'
          }
        } catch {
          // a failed refill leaves the answer to what the ledger holds
        }
        return answered(memId, ns, opts, await recall(ledger, memId, opts), refilled)
      } catch {
        return answered(memId, ns, opts, `[tool_memory error: ledger fetch failed for ${typeof memId === 'string' ? memId : String(memId)}]`, false)
      }
    },
    { name: RECALL_TOOL_NAME, description: RECALL_DESCRIPTION, schema: RECALL_SCHEMA },
  )
}

module.exports = { createRecallToolResultTool, candidateFor }
