'use strict'
// One call of the `recall_tool_result` tool, whatever the framework: its
// model-facing schema and description, the arguments as a model sends them
// read into `recall` options, and the answer (structured `[tool_memory …]` /
// `[recall: …]` text, never an exception). Each adapter's tool wraps
// `answerRecall` with its own way to find the namespace and to refill a
// missed id from the originals it can see.

const { recall, MAX_OUTPUT_CHARS } = require('../index.js')
const { recallAnswer } = require('./ledger.js')
// zod/v4 exists in zod >= 3.25 and in zod 4: the same API (and .meta) either way.
const { z } = require('zod/v4')
const { codePoints } = require('../core/text.js')
const { unknownArguments, shownValue: shown, FORMATS } = require('./recall-args.js')

// What the model reads on every request: the recall tool is bound from the
// first call, so its definition rides on all of them. The stubs and notes say
// how to call it; docs/recall.md has the rest.
function recallDescription(maxChars) {
  return `Read back a compacted tool result as its stub or note shows; answers are capped at ${maxChars} chars.`
}

// Model-facing arguments, typed for the model and terse (no descriptions, no
// $schema). Parsing accepts any value, so that a wrong type gets a structured
// answer from the tool instead of the framework throwing a schema exception at the agent.
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

const present = (v) => v !== undefined && v !== null

class ArgError extends Error {}

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
 * The answer to one recall call. `input`: the arguments as the model sent
 * them; `nsOf()`: the call's namespace; `refill(memId, ns)`: when the ledger
 * does not hold the id, records the original again from what the framework
 * keeps and answers 'refilled', 'collision' or 'absent'; `report`: the
 * reporter for events (or null). Never throws.
 */
async function answerRecall(ledger, input, { nsOf, refill, maxOutputChars = MAX_OUTPUT_CHARS, report = null }) {
  const args = input && typeof input === 'object' ? input : {}
  const memId = args.mem_id
  let ns = ''
  const opts = {}
  const answered = (text, refilled) => {
    if (report !== null) {
      report.event({ type: 'recalled', memId: typeof memId === 'string' ? memId : String(memId), namespace: ns, slice: sliceOf(opts), chars: codePoints(text), refilled, error: isErrorAnswer(text) })
    }
    return text
  }
  try {
    ns = nsOf()
    opts.namespace = ns
    opts.maxOutputChars = maxOutputChars
    if (present(args.format)) opts.format = args.format // a format that is not one is answered by recall()
    // A name the tool does not know is answered (named, with the one it likely meant), not dropped.
    const unknown = typeof memId === 'string' && memId !== '' ? unknownArguments(args) : null
    if (unknown !== null) return answered(unknown, false)
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
      if (err instanceof ArgError && typeof memId === 'string' && memId !== '') return answered(`[tool_memory error: ${err.message}]`, false)
      // an invalid mem_id is reported first, by recall
    }
    let refilled = false
    try {
      if (typeof memId === 'string' && memId !== '' && typeof ledger.handle === 'function' && (await ledger.handle(memId, { namespace: ns })) == null) {
        const outcome = await refill(memId, ns)
        if (outcome === 'collision') {
          return answered(`[tool_memory error: ${memId} matches two different results in this conversation (an id collision); refusing to guess which one]`, false)
        }
        refilled = outcome === 'refilled'
      }
    } catch (err) {
      // A failed lookup leaves the answer to the recall (which names no server to the
      // model); the store's own words go to the app's logger and onEvent.
      if (report !== null) report.storeFailed(memId, ns, err)
    }
    return answered(await recall(ledger, memId, opts), refilled)
  } catch {
    return answered(recallAnswer('failed', memId), false)
  }
}

module.exports = { RECALL_SCHEMA, recallDescription, answerRecall }
