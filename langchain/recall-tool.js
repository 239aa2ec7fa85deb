'use strict'
// The `recall_tool_result` tool: the model's way back to a compacted result.
// It answers through `recall` (structured `[tool_memory …]` / `[recall: …]`
// messages, never an exception) and, when the ledger misses an id (restart,
// eviction, another replica), refills it from the run state's originals.

const { recall, memIdFor, MAX_OUTPUT_CHARS } = require('../index.js')
const { recallAnswer } = require('../lib/recall.js')
const { blocksAnswer } = require('../lib/block-answer.js')
const { tool } = require('@langchain/core/tools')
// zod/v4 exists in zod >= 3.25 and in zod 4: the same API (and .meta) either way.
const { z } = require('zod/v4')
const { isTool, infoOf, toolCallIndex, resultOf } = require('./messages.js')
const { RECALL_TOOL_NAME, codePoints } = require('../core/index.js')
const { checkLedger, optionsObject, fail, checkNamespace } = require('../lib/options.js')
const { namespaceResolver } = require('./namespace.js')
const { cacheFor, recordOnce } = require('../core/record-cache.js')
const { unknownArguments, OPTION_OF } = require('../lib/recall-args.js')

// What the model reads on every request: the recall tool is bound from the
// first call, so its definition rides on all of them. A few words per
// argument, and untyped properties (any value is read, "12" as 12, by
// lib/recall-args.js), keep it short: `npm run bench:context` prices it.
// ignore_case, context and max_chars are left to the answers that name them;
// docs/recall.md has the rest.
const RECALL_DESCRIPTION = 'lines "120-180"; pattern: line regex, no look-around; query: text; offset: read on; json_path: RFC 9535 (I-Regexp); format: count|paths|raw.'

// Model-facing arguments: names only, no types or prose per argument (the
// description says what each is). Parsing accepts any value, so that a wrong
// type gets a structured answer from the tool instead of LangChain throwing a
// schema exception at the agent; names the schema does not list (ignore_case,
// context, max_chars, and mistakes) are kept (loose), for the tool to read or name.
const RECALL_SCHEMA = z
  .object({
    mem_id: z.unknown().optional(),
    json_path: z.unknown().optional(),
    pattern: z.unknown().optional(),
    query: z.unknown().optional(),
    lines: z.unknown().optional(),
    offset: z.unknown().optional(),
    format: z.unknown().optional(),
  })
  .loose()
  .meta({ required: ['mem_id'], additionalProperties: undefined, $schema: undefined })

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
        // A name the tool does not know is answered (named, with the one it likely meant), not dropped;
        // so is `id` or `memId` sent for mem_id.
        const unknown = unknownArguments(args)
        if (unknown !== null && (!present(memId) || (typeof memId === 'string' && memId !== ''))) return answered(memId, ns, opts, unknown, false)
        // The values are read by recall() (lib/recall-args.js), as for any caller.
        for (const [name, key] of Object.entries(OPTION_OF)) if (present(args[name])) opts[key] = args[name]
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
    { name: RECALL_TOOL_NAME, description: RECALL_DESCRIPTION, schema: RECALL_SCHEMA },
  )
}

module.exports = { createRecallToolResultTool, recallTool, candidateFor, checkCap }
