'use strict'
// One call of the `recall_tool_result` tool, whatever the framework: its
// model-facing schema and description, the arguments as a model sends them,
// and the answer (structured `[tool_memory …]` / `[recall: …]` text, never an
// exception). Each adapter's tool wraps `answerRecall` with its own way to
// find the namespace and to refill a missed id from the originals it can see.

const { recall, MAX_OUTPUT_CHARS } = require('../index.js')
const { recallAnswer } = require('./recall.js')
// zod/v4 exists in zod >= 3.25 and in zod 4: the same API (and .meta) either way.
const { z } = require('zod/v4')
const { codePoints } = require('../core/text.js')
const { unknownArguments, OPTION_OF } = require('./recall-args.js')
const { blocksAnswer } = require('./block-answer.js')

// What the model reads on every request: the recall tool is bound from the
// first call, so its definition rides on all of them. A few words per
// argument, and untyped properties (any value is read, "12" as 12, by
// lib/recall-args.js), keep it short: `npm run bench:context` prices it.
// ignore_case, context and max_chars are left to the answers that name them;
// docs/recall.md has the rest.
const RECALL_DESCRIPTION = 'lines "120-180"; pattern: line regex, no look-around; query: text; offset: read on; json_path: RFC 9535 (I-Regexp); format: count|paths|raw.'

// Model-facing arguments: names only, no types or prose per argument (the
// description says what each is). Parsing accepts any value, so that a wrong
// type gets a structured answer from the tool instead of the framework throwing
// a schema exception at the agent; names the schema does not list (ignore_case,
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

const present = (v) => v !== undefined && v !== null

// What a recall asked for, for the `recalled` event.
function sliceOf(opts) {
  if (opts.jsonPath !== undefined) return 'json_path'
  if (opts.pattern !== undefined) return 'pattern'
  if (opts.query !== undefined) return 'query'
  if (opts.lines !== undefined) return 'lines'
  if (opts.offset !== undefined || opts.maxChars !== undefined) return 'range'
  return opts.format === 'full' ? 'full' : 'summary'
}

// An answer that holds nothing of the result: a mistake in the call, an id
// not found, or nothing matched. A pattern's or a count's header
// ("[recall: 43 matching lines …", "… selects 50 nodes]") is an answer.
const ANSWER_HEADER = /^\[recall: ([\d,]+ matching lines? |json_path '.*' selects [\d,]+ nodes?\])/
const isErrorAnswer = (t) => typeof t === 'string' && /^\[(tool_memory (error|not found)|recall: )/.test(t) && !ANSWER_HEADER.test(t)

/**
 * The answer to one recall call. `input`: the arguments as the model sent
 * them; `nsOf()`: the call's namespace; `refill(memId, ns)`: when the ledger
 * does not hold the id, records the original again from what the framework
 * keeps and answers 'refilled', 'collision' or 'absent'; `report`: the
 * reporter for events (or null); `blocks`: an image or document may be answered as
 * its content blocks (else as text). Never throws.
 */
async function answerRecall(ledger, input, { nsOf, refill, maxOutputChars = MAX_OUTPUT_CHARS, report = null, blocks = false }) {
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
    // A name the tool does not know is answered (named, with the one it likely meant), not dropped;
    // so is `id` or `memId` sent for mem_id.
    const unknown = unknownArguments(args)
    if (unknown !== null && (!present(memId) || (typeof memId === 'string' && memId !== ''))) return answered(unknown, false)
    // The values are read by recall() (lib/recall-args.js), as for any caller.
    for (const [name, key] of Object.entries(OPTION_OF)) if (present(args[name])) opts[key] = args[name]
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
    // An image or a document comes back as itself (standard blocks) where the
    // adapter's tool may answer blocks (`blocks`); a ledger that fails or is
    // closed here is answered by the recall below, in its words.
    if (blocks && typeof memId === 'string' && /^trm_[0-9a-f]{12}$/.test(memId.trim()) && typeof ledger.fetchBlock === 'function') {
      const block = await ledger.fetchBlock(memId.trim(), { namespace: ns }).catch(() => null)
      if (block !== null) {
        const { tool: content } = blocksAnswer([block])
        answered(content[0].text, refilled)
        return content
      }
    }
    return answered(await recall(ledger, memId, opts), refilled)
  } catch {
    return answered(recallAnswer('failed', memId), false)
  }
}

module.exports = { RECALL_SCHEMA, RECALL_DESCRIPTION, answerRecall }
