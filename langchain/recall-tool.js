'use strict'
// The `recall_tool_result` tool: the model's way back to a compacted result.
// It answers through `recall` (structured `[tool_memory …]` / `[recall: …]`
// messages, never an exception) and, when the ledger misses an id (restart,
// eviction, another replica), refills it from the run state's originals.

const { recall, memIdFor, MAX_OUTPUT_CHARS } = require('../index.js')
const { recallAnswer } = require('../lib/ledger.js')
const { blocksAnswer } = require('../lib/block-answer.js')
const { tool } = require('@langchain/core/tools')
// zod/v4 exists in zod >= 3.25 and in zod 4: the same API (and .meta) either way.
const { z } = require('zod/v4')
const { isTool, infoOf, toolCallIndex, resultOf } = require('./messages.js')
const { RECALL_TOOL_NAME, codePoints } = require('../core/index.js')
const { checkLedger, optionsObject, fail, checkNamespace } = require('../lib/options.js')
const { namespaceResolver } = require('./namespace.js')
const { cacheFor, recordOnce } = require('../core/record-cache.js')
const { unknownArguments, shownValue: shown, FORMATS } = require('../lib/recall-args.js')

// What the model reads on every request: the recall tool is bound from the
// first call, so its definition rides on all of them. The stubs and notes say
// how to call it; docs/recall.md has the rest.
function recallDescription(maxChars) {
  return `Read back a compacted tool result as its stub or note shows; answers are capped at ${maxChars} chars.`
}

// Model-facing arguments, typed for the model and terse (no descriptions, no
// $schema). Parsing accepts any value, so that a wrong type gets a structured
// answer from the tool instead of LangChain throwing a schema exception at the agent.
// `format` lists its values: a model cannot guess 'count' or 'paths' otherwise.
const anyArg = (type, values) => z.unknown().optional().meta(values ? { type, enum: values } : { type })
const RECALL_SCHEMA = z
  .object({
    mem_id: anyArg('string'),
    json_path: anyArg('string'),
    pattern: anyArg('string'),
    ignore_case: anyArg('boolean'),
    context: anyArg('integer'),
    lines: anyArg('string'),
    query: anyArg('string'),
    offset: anyArg('integer'),
    max_chars: anyArg('integer'),
    format: anyArg('string', FORMATS),
  })
  // Unknown argument names are kept (loose), so the tool can name them in its answer.
  .loose()
  .meta({ required: ['mem_id'], additionalProperties: false, $schema: undefined })

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
  const e = await recordOnce(ledger, cache, ns, resultOf(found.m, found.info, toolCallIndex(messages).get(found.m.tool_call_id)))
  found.info.memId = e.memId
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


// Models send numbers as strings now and then: accept "12", refuse "twelve"
// with a message the model can act on (recall alone would ignore it).
function intArg(name, v) {
  if (typeof v === 'number' && Number.isFinite(v)) return Math.trunc(v)
  if (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v)) return Number.parseInt(v, 10)
  throw new ArgError(`${name} must be an integer, got ${shown(v)}`)
}

function boolArg(name, v) {
  if (v === true || v === 'true' || v === 1) return true
  if (v === false || v === 'false' || v === 0) return false
  throw new ArgError(`${name} must be true or false, got ${shown(v)}`)
}

// "120-180" as written; 120 reads as "120" and [120, 180] as "120-180".
function linesArg(v) {
  if (typeof v === 'string') return v
  if (typeof v === 'number' && Number.isFinite(v)) return String(Math.trunc(v))
  if (Array.isArray(v) && v.length === 2 && v.every((x) => Number.isInteger(x))) return `${v[0]}-${v[1]}`
  throw new ArgError(`lines must be a range such as "120-180", got ${shown(v)}`)
}

function strArg(name, v) {
  if (typeof v === 'string') return v
  if (typeof v === 'number' || typeof v === 'boolean') return String(v)
  throw new ArgError(`${name} must be a string, got ${shown(v)}`)
}

class ArgError extends Error {}

/** A recall answer cap: a whole number of code points, at least 1. */
function checkCap(fn, name, v) {
  if (!Number.isSafeInteger(v) || v < 1) throw fail(fn, `${name} must be a whole number of characters, at least 1`, v)
  return v
}

// What a recall asked for, for the `recalled` event.
function sliceOf(opts) {
  if (opts.jsonPath !== undefined) return 'json_path'
  if (opts.pattern !== undefined) return 'pattern'
  if (opts.query !== undefined) return 'query'
  if (opts.lines !== undefined) return 'lines'
  if (opts.offset !== undefined || opts.maxChars !== undefined) return 'range'
  return opts.format === 'full' ? 'full' : 'summary'
}

const isErrorAnswer = (t) => /^\[(tool_memory (error|not found)|recall: )/.test(t)

/**
 * The `recall_tool_result` tool bound to `ledger`. Never throws. `fn` names
 * the public function the user called, for its TypeErrors; `report` is the
 * middleware's reporter (events), when there is one.
 */
function createRecallToolResultTool(ledger, options) {
  const fn = 'createRecallToolResultTool(ledger, options)'
  checkLedger(fn, ledger, ['fetch'])
  const o = optionsObject(fn, options, ['namespace', 'maxOutputChars'])
  checkNamespace(fn, o.namespace)
  const maxOutputChars = o.maxOutputChars == null ? MAX_OUTPUT_CHARS : checkCap(fn, 'maxOutputChars', o.maxOutputChars)
  return recallTool(ledger, namespaceResolver(o.namespace), maxOutputChars)
}

/**
 * The tool over options already checked (by `createRecallToolResultTool`, or
 * the middleware's setup): `nsOf(runtime)` is the namespace of a call.
 */
function recallTool(ledger, nsOf, maxOutputChars, report = null) {
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
        opts.maxOutputChars = maxOutputChars
        if (present(args.format)) opts.format = args.format // a format that is not one is answered by recall()
        // A name the tool does not know is answered (named, with the one it likely meant), not dropped.
        const unknown = typeof memId === 'string' && memId !== '' ? unknownArguments(args) : null
        if (unknown !== null) return answered(memId, ns, opts, unknown, false)
        try {
          if (present(args.query)) opts.query = strArg('query', args.query)
          if (present(args.offset)) opts.offset = intArg('offset', args.offset)
          if (present(args.max_chars)) opts.maxChars = intArg('max_chars', args.max_chars)
          if (present(args.json_path)) opts.jsonPath = strArg('json_path', args.json_path)
          if (present(args.pattern)) opts.pattern = strArg('pattern', args.pattern)
          if (present(args.ignore_case)) opts.ignoreCase = boolArg('ignore_case', args.ignore_case)
          if (present(args.context)) opts.context = intArg('context', args.context)
          if (present(args.lines)) opts.lines = linesArg(args.lines)
        } catch (err) {
          if (err instanceof ArgError && typeof memId === 'string' && memId !== '') return answered(memId, ns, opts, `[tool_memory error: ${err.message}]`, false)
          // an invalid mem_id is reported first, by recall
        }
        let refilled = false
        try {
          if (typeof memId === 'string' && memId !== '' && typeof ledger.handle === 'function' && (await ledger.handle(memId, { namespace: ns })) == null) {
            const outcome = await refillFromState(ledger, runtime, memId, ns)
            if (outcome === 'collision') {
              return answered(memId, ns, opts, `[tool_memory error: ${memId} matches two different results in this conversation (an id collision); refusing to guess which one]`, false)
            }
            refilled = outcome === 'refilled'
          }
        } catch (err) {
          // A failed lookup leaves the answer to the recall (which names no server to the
          // model); the store's own words go to the app's logger and onEvent.
          if (report !== null) report.storeFailed(memId, ns, err)
        }
        // An image or a document comes back as itself (standard blocks; the middleware
        // puts them in the form the model's provider accepts: langchain/block-form.js).
        // A ledger that fails or is closed here is answered by the recall below, in its words.
        const block = typeof memId === 'string' && /^trm_[0-9a-f]{12}$/.test(memId.trim()) && typeof ledger.fetchBlock === 'function' ? await ledger.fetchBlock(memId.trim(), { namespace: ns }).catch(() => null) : null
        if (block !== null) {
          const { tool: content } = blocksAnswer([block])
          answered(memId, ns, opts, content[0].text, refilled)
          return content
        }
        return answered(memId, ns, opts, await recall(ledger, memId, opts), refilled)
      } catch {
        return answered(memId, ns, opts, recallAnswer('failed', memId), false)
      }
    },
    { name: RECALL_TOOL_NAME, description: recallDescription(maxOutputChars), schema: RECALL_SCHEMA },
  )
}

module.exports = { createRecallToolResultTool, recallTool, candidateFor, checkCap }
