'use strict'
// The framework-neutral core of compaction: which tool results a model call
// sees compacted, and where cache marks go. No framework is imported here
// (a jest test checks it); each adapter (langchain/, and the AI SDK and
// Agents SDK ones) maps its own messages to the plain data below and applies
// the answer to its own messages. The rules, in plain words:
// docs/compaction.md; the measurements behind every constant:
// docs/context-economics.md.
//
// The contract (typedefs in conversation.js):
// 1. Options. `resolveOptions(options, fn, keys)` checks the user's options
//    once (TypeErrors name `fn`) and answers the resolved policy of one cache
//    model; `cacheModelFor(model)` picks 'breakpoint' (Anthropic) or 'prefix'.
//    Resolve both cache models' policies up front when the model is known
//    only per call, and pass the same resolved object on every call.
// 2. Messages. Map the list the model is about to read, in order, to
//    PlainMessage objects: role 'assistant' | 'user' | 'tool' | 'system';
//    `size` (UTF-16 length of the text, plus `callsSize(calls)` for an
//    assistant message); `text`; `markable` (has non-empty text); an
//    assistant's `calls` [{ id, name, args }]; a tool result's `callId`,
//    `name`, `chars` (code points, `codePoints(text)`; 0 when ours or not
//    text-only), `textOnly` and `ours` (a stub or note we put there). Cache
//    the plain object per original message (and its content): the same
//    object on every call lets `plan` resume instead of replaying.
// 3. Plan. `plan(plainMessages, policy, env)` with env { toolChars,
//    systemChars, recallToolChars } answers { decisions, marks, cost }:
//    `decisions` maps a message index to 'mask' | 'evict' | 'rnote'.
// 4. Apply, to a copy of the list (the originals stay where the framework
//    keeps its state, which is what recall reads back):
//    - 'mask': record the result in the ledger (`ledger.record`); use its
//      stub where `stubEarns(chars, codePoints(stub))`, else
//      `resultNote(toolName, chars, memId)`;
//    - 'evict': record it; use `ledger.stub(memId, { namespace, previewChars:
//      policy.evictPreviewChars })`;
//    - 'rnote': `recallNote(call, chars)`, the call being the recall's own
//      { args } (no record);
//    - `marks`: put the provider's cache mark (Anthropic `cache_control:
//      { type: 'ephemeral' }`) on the last text block of each message at
//      these indices, after the replacements;
//    - remember the replacements as ours (`ours: true` next time), and make
//      each one the same bytes on every call, so the prompt cache holds.
// 5. Usage (usage.js; docs/usage.md says what users see).
//    - Each assistant message's plain object carries `usage`: `readUsage(r)`
//      of the provider's record for the call it answers (LangChain's
//      `usage_metadata`, an AI SDK step's `usage`, an Agents SDK `Usage`), or
//      null; and `model`, the model that answered. The replay learns each
//      model's calibration factor from them, in order, so a reload learns the
//      same; thresholds and the budget read calibrated sizes from then on.
//      With the user's `countTokens` (resolved as `policy.countTokens`), make
//      `size`, `chars` and the env's sizes 4 × its count of the text.
//    - After the call, `plan(...).call` is that call priced both ways:
//      `estimateOf(call)` the event's { none, ours } in tokens and cost
//      (none is { 0, 0 } for a call whose tool calls are all recalls, as the
//      totals count it); `judge(call.ours.chars, reported.inputTokens)
//      .verdict === 'insane'` → warn once, the replay ignores that report;
//      `cacheMissed(call, reported)` > 0 (or the cached tokens the
//      estimate counted, for `call`) → warn once per cause and emit
//      { type: 'cacheMiss' }. Emit { type: 'usage', threadId, call:
//      call.index, model, factor: call.factor, reported, estimate }.
//    - An adapter that sees no response (a pre-model hook) reports
//      `plan(...).answered` instead, with the last assistant message's
//      usage, once per call (`answered.index`).
//    - An adapter whose messages carry no usage (the AI SDK, the Agents SDK)
//      keeps each call's report by call index and passes
//      `carryUsage(plain, usageAt)` to `plan` and `totals` instead.
//    - An adapter that can serialise the request it sent prices it with
//      `PromptCache` (request-cost.js, the bench's ruler): `price` then `add`
//      per call, per thread, for the request as sent and the same without
//      compaction; the event's estimate is that × the factor, kept beside
//      the answer as the assistant message's `priced`, which `totals` counts.
//    - `totals(plainMessages, policy, env)`: the thread's totals from its
//      messages (the same env as every call's plan).

const { plan, totals } = require('./plan.js')
const usage = require('./usage.js')
const { NO_ENV, callsSize } = require('./conversation.js')
const { DEFAULTS, RECALL_TOOL_NAME, COMPACT_KEYS, TOOL_MEMORY_KEYS, resolveOptions } = require('./options.js')
const { PRICING, cacheModelFor, cachedCacheModelFor } = require('./cache-model.js')
const { stubEarns } = require('./offers.js')
const { resultNote, recallNote } = require('./notes.js')
const { codePoints, oneLine } = require('./text.js')
const { callArgs } = require('./call-args.js')
const { tokensOf } = require('./quotes.js')
const { imageTokens } = require('./image-tokens.js')
const { PromptCache, messageText } = require('./request-cost.js')

module.exports = {
  plan,
  totals,
  CHARS_PER_TOKEN: usage.CHARS_PER_TOKEN,
  readUsage: usage.readUsage,
  carryUsage: usage.carryUsage,
  estimateOf: usage.estimateOf,
  cacheMissed: usage.cacheMissed,
  judge: usage.judge,
  SANE: usage.SANE,
  PromptCache,
  messageText,
  NO_ENV,
  callsSize,
  DEFAULTS,
  RECALL_TOOL_NAME,
  COMPACT_KEYS,
  TOOL_MEMORY_KEYS,
  resolveOptions,
  PRICING,
  cacheModelFor,
  cachedCacheModelFor,
  stubEarns,
  resultNote,
  recallNote,
  codePoints,
  sizeOf: usage.sizeOf,
  oneLine,
  callArgs,
  tokensOf,
  imageTokens,
}
