'use strict'
// The rewriting of the model input: records what the core's plan compacts in
// the ledger, puts stubs and notes in a copy of the item list, and carries
// the cache marks. The items the SDK keeps (its run state, a session's
// originals) are never touched: recall reads the ledger, which holds each
// result before its stub is sent.

const { plan, stubEarns, codePoints, oneLine, resultNote, recallNote, carryUsage } = require('../core/index.js')
const { cacheFor, recordOnce, evictedStub } = require('../core/record-cache.js')
const { plainMessages, resultInfo, markOurs, isOurs, isAssistantPart } = require('./items.js')

// What the model is told of a failed record: never the store's address or error text.
const discreetReason = (err) => (err && err.code === 'ERR_SYMFONIC_STORE_TIMEOUT' ? 'the store did not answer' : 'the store failed')

// A result over evictChars that could not be recorded is still never sent in full.
function unarchived(item, info, previewChars, reason) {
  const head = oneLine(info.text.slice(0, previewChars * 2).replace(/\r\n|[\r\n]/g, ' '), previewChars)
  return [
    '[symfonic.tool_memory v1] result not archived',
    `tool=${oneLine(item.name || 'unknown_tool', 128)} call_id=${oneLine(item.callId, 64)}`,
    `size_original=${info.chars} chars: too large to show in full, and it could not be stored for recall (${reason}).`,
    `preview: ${head}`,
  ].join('\n')
}

const withOutput = (item, output) => markOurs({ ...item, output })

// Anthropic's cache mark, as an item carries it: its `providerData`, which
// the AI SDK bridge (@openai/agents-extensions' `aisdk()`) hands the AI SDK as
// `providerOptions`, where @ai-sdk/anthropic reads `anthropic.cacheControl`
// and sends `cache_control` on the item's block: a tool result, a message's
// last block, a tool call. (The SDK's own `promptCacheBreakpoint` exists on
// input text only, and the bridge drops it.)
const CACHE_CONTROL = Object.freeze({ type: 'ephemeral' })
// Replacements, per original item: { output, ns, kind, ledger, item, event, once }.
const replaced = new WeakMap()
// Marked copies, per item object: a mark that stays put costs nothing per call.
const marked = new WeakMap()

const isRecord = (x) => x !== null && typeof x === 'object' && !Array.isArray(x)

// The same item with the cache mark in its providerData; its content is unchanged.
function withCacheMark(item) {
  let out = marked.get(item)
  if (out !== undefined) return out
  const data = isRecord(item.providerData) ? item.providerData : {}
  const anthropic = isRecord(data.anthropic) ? data.anthropic : {}
  out = { ...item, providerData: { ...data, anthropic: { ...anthropic, cacheControl: CACHE_CONTROL } } }
  if (isOurs(item)) markOurs(out)
  marked.set(item, out)
  return out
}

// The item of a model response (items[..k]) that takes its mark: its last call or message, not a reasoning item.
function markedItemOf(items, k) {
  let j = k
  while (j > 0 && items[j].type === 'reasoning' && isRecord(items[j - 1]) && isAssistantPart(items[j - 1])) j--
  return j
}

/**
 * `{ input, call }`: the input the model is sent, a copy of `items` compacted as the core
 * plans under the resolved policy `o`, recorded in `ledger` under namespace
 * `ns`, and the plan's `call` (that request priced both ways, for the usage
 * event). `env`: the request's sizes beside the items; `report`: warnings and events;
 * `usageAt(k)`: the usage call k reported (calibration, core/usage.js `carryUsage`).
 */
async function compactItems(items, ledger, o, ns, env, report, usageAt = () => undefined) {
  const { plain, at } = plainMessages(items)
  const { decisions, marks, call } = plan(carryUsage(plain, usageAt), o, env)
  if (decisions.size === 0 && marks.length === 0) return { input: items, call }
  const out = items.slice()
  let calls = null
  const callOf = (id) => {
    if (calls === null) {
      calls = new Map()
      for (const p of plain) if (p.role === 'assistant') for (const c of p.calls) if (c.id) calls.set(c.id, c)
    }
    return calls.get(id)
  }
  const cache = cacheFor(ledger)
  const events = []
  const event = (k, e, once) => {
    if (o.onEvent !== undefined) events.push([k, e, once])
  }
  const pending = []
  for (const [i, kind] of decisions) {
    const k = at[i]
    const item = items[k]
    // Hot path: this very item was compacted before, the same way; nothing crosses into Rust.
    const prev = replaced.get(item)
    if (prev !== undefined && prev.output === item.output && prev.ns === ns && prev.kind === kind && prev.ledger === ledger) {
      out[k] = prev.item
      if (prev.event !== null) event(k, prev.event, prev.once)
      continue
    }
    const info = resultInfo(item)
    const call = callOf(item.callId)
    const toolName = item.name || (call && call.name) || 'unknown_tool'
    const done = (text, memId, note) => {
      out[k] = withOutput(item, text)
      const shown = kind === 'evict' ? 'evict' : note ? 'note' : 'stub'
      const e = o.onEvent === undefined ? null : { type: 'compacted', kind: shown, toolCallId: item.callId, toolName, memId, namespace: ns, chars: info.chars, compactedChars: codePoints(text) }
      const once = `${ns}\0${item.callId}\0${shown}\0${memId}`
      replaced.set(item, { output: item.output, ns, kind, ledger, item: out[k], event: e, once })
      if (e !== null) event(k, e, once)
    }
    if (kind === 'rnote') {
      const mem = call && call.args && call.args.mem_id
      done(recallNote(call, info.chars), typeof mem === 'string' ? mem : null, true)
      continue
    }
    pending.push(
      (async () => {
        let entry = await recordOnce(ledger, cache, ns, { callId: item.callId, toolName, text: info.text, args: call ? call.args : {} })
        if (kind === 'evict') {
          let stub = await evictedStub(ledger, entry, ns, o.evictPreviewChars)
          if (stub === null) {
            // the ledger lost the entry (LRU): record it again
            cache.byCall.delete(ns + '\0' + item.callId)
            entry = await recordOnce(ledger, cache, ns, { callId: item.callId, toolName, text: info.text, args: call ? call.args : {} })
            stub = (await evictedStub(ledger, entry, ns, o.evictPreviewChars)) ?? entry.stub
          }
          done(stub, entry.memId, false)
        } else if (stubEarns(info.chars, codePoints(entry.stub))) done(entry.stub, entry.memId, false)
        else done(resultNote(toolName, info.chars, entry.memId), entry.memId, true)
      })().catch((err) => {
        // Never fail a model call over compaction: a medium result is sent in
        // full, one over evictChars as a placeholder with its head.
        const reason = String((err && err.message) || err).slice(0, 200)
        if (kind === 'evict') out[k] = withOutput(item, unarchived(item, info, o.evictPreviewChars, discreetReason(err)))
        report.warn(`record\0${ns}\0${item.callId}`, `@symfonic/core: tool result ${item.callId} (${info.chars} chars) could not be recorded (${reason}); ${kind === 'evict' ? 'the model sees its head only' : 'it is sent in full'}`)
        event(k, { type: 'recordFailed', toolCallId: item.callId, toolName, namespace: ns, chars: info.chars, error: reason }, `record\0${ns}\0${item.callId}`)
      }),
    )
  }
  if (pending.length > 0) await Promise.all(pending)
  for (const j of marks) {
    const k = plain[j].role === 'assistant' ? markedItemOf(out, at[j]) : at[j]
    out[k] = withCacheMark(out[k])
  }
  for (const [, e, once] of events.sort((a, b) => a[0] - b[0])) report.event(e, once)
  return { input: out, call }
}

module.exports = { compactItems }
