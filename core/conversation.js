'use strict'
// The conversation as plain data: the contract between an adapter (LangChain,
// the AI SDK, the Agents SDK) and the policy. An adapter maps its messages to
// these shapes, calls `plan` (plan.js), and applies the answer to its own
// messages (core/index.js says how).

/**
 * A tool call of an assistant message.
 * @typedef {object} PlainCall
 * @property {string} [id]   the call's id, which its tool result names (`callId`)
 * @property {string} [name] the tool called
 * @property {unknown} [args] the arguments as the model sent them (read
 *   defensively: a Proxy or a throwing getter is tolerated)
 */

/**
 * One message of the conversation, in order. Plain messages are treated as
 * immutable: a message whose content changed must be a new object, and the
 * same message passed again should be the same object (the policy resumes
 * its replay of a list that extends the previous one by identity).
 * @typedef {object} PlainMessage
 * @property {'assistant' | 'user' | 'tool' | 'system'} role
 *   'assistant': a model's answer (each one ends a call); 'user': a turn of
 *   the user; 'tool': a tool result; 'system': anything else the prompt
 *   carries (system, developer, or an unknown kind).
 * @property {number} size characters the message adds to a request: its
 *   text's UTF-16 length, plus for an assistant message its tool calls as
 *   JSON (`callsSize`)
 * @property {string} text its text (text blocks joined), read for the
 *   distinctive tokens the model quotes (quotes.js)
 * @property {boolean} markable whether it can carry a cache mark (it has
 *   non-empty text; Anthropic refuses an empty text block)
 * @property {PlainCall[]} [calls] assistant: its tool calls, in order
 * @property {Usage | null} [usage] assistant: the usage the provider reported
 *   for the call it answers (`readUsage`, usage.js), from which the
 *   calibration factor is learned
 * @property {string} [model] assistant: the model that answered (each model
 *   has its own factor)
 * @property {{ none: { inputTokens: number, cost: number }, ours: { inputTokens: number, cost: number } }} [priced]
 *   assistant: the usage event's estimate of the call it answers, as the
 *   adapter kept it beside the message (the request as sent, priced by
 *   request-cost.js); the totals count it instead of the budget's figures
 * @property {string} [callId] tool: the id of the call it answers
 * @property {string} [name] tool: the tool's name when the message carries
 *   it (else the call's name is used)
 * @property {number} [chars] tool: its text's length in code points (0 when
 *   `ours` or not `textOnly`)
 * @property {boolean} [textOnly] tool: its content is text only (a result
 *   with an image or a file is never compacted)
 * @property {boolean} [ours] tool: it is one of our stubs or notes already
 *   (known from the adapter's own bookkeeping, never from its text)
 */

/**
 * What precedes the messages in a request, in characters, so that the budget
 * prices requests as the provider sees them.
 * @typedef {object} RequestEnv
 * @property {number} toolChars the tool definitions other than the recall tool
 * @property {number} systemChars the system prompt (when not a message)
 * @property {number} recallToolChars the recall tool's definition (0 when the app binds it itself)
 */

/**
 * A provider's usage record for one call (usage.js `readUsage`).
 * @typedef {object} Usage
 * @property {number} inputTokens the whole input, cached parts included
 * @property {number | null} cacheReadTokens read from the cache (null: not reported)
 * @property {number | null} cacheWriteTokens written to the cache (null: not reported)
 * @property {number} outputTokens
 */

/**
 * One call priced both ways, as the budget priced it (characters, or the
 * adapter's token units × 4; `estimateOf` in usage.js turns it into tokens).
 * @typedef {object} CallPrice
 * @property {number} index the call's number in the conversation (0-based)
 * @property {number} factor the calibration factor it was decided under
 * @property {{ chars: number, cachedChars: number, cost: number }} ours the request as compacted
 * @property {{ chars: number, cost: number }} none the request without compaction
 */

/**
 * Totals of a conversation's calls (plan.js `totals`).
 * @typedef {object} UsageTotals
 * @property {number} modelCalls
 * @property {number} compactions tool results compacted
 * @property {number} recalls recall_tool_result calls
 * @property {{ none: { inputTokens: number, cost: number }, ours: { inputTokens: number, cost: number } }} estimate
 * @property {{ calls: number, inputTokens: number, cacheReadTokens: number, cacheWriteTokens: number, outputTokens: number }} reported
 * @property {{ cost: number, ratio: number }} saving none − ours, and that over none
 */

/**
 * What to do for the call about to be made.
 * @typedef {object} Plan
 * @property {Map<number, 'mask' | 'evict' | 'rnote'>} decisions tool results
 *   to replace, by index: 'mask' by the ledger's stub where `stubEarns(chars,
 *   stubChars)`, else by `resultNote(name, chars, memId)`; 'evict' by the
 *   ledger's stub with `previewChars: options.evictPreviewChars`; 'rnote' (a
 *   recall answer already read) by `recallNote(call, chars)`
 * @property {number[]} marks indices of messages to carry a cache mark on
 *   their last text block (only under `cacheModel: 'breakpoint'`)
 * @property {{ ours: number, none: number }} cost the conversation's cost so
 *   far, this call included, as compacted and without compaction (input-price units)
 * @property {CallPrice} call this call priced both ways
 * @property {CallPrice | null} answered the call the last assistant message
 *   answered, priced both ways (null before the first answer): what an
 *   adapter that sees no response (a pre-model hook) reports usage for
 * @property {{ call: number, model: string, ratio: number } | null} insane the
 *   first usage report ignored as not describing its request (warn once)
 */

/** @type {RequestEnv} */
const NO_ENV = Object.freeze({ toolChars: 0, systemChars: 0, recallToolChars: 0 })

/** ours's request before its messages: the tools, the recall tool's definition, the system prompt. */
const prefixChars = (env) => env.toolChars + env.recallToolChars + env.systemChars

/** Characters an assistant message's tool calls add to a request (as JSON; 100 when they cannot be serialised). */
function callsSize(calls) {
  if (!Array.isArray(calls) || calls.length === 0) return 0
  try {
    return JSON.stringify(calls.map((c) => ({ id: c && c.id, name: c && c.name, args: c && c.args }))).length
  } catch {
    return 100 // arguments that cannot be serialised: a nominal size
  }
}

module.exports = { NO_ENV, prefixChars, callsSize }
