'use strict'
// The rewriting of messages: records what the policy compacts in the ledger,
// puts stubs (and recall notes) in a copy of the list, and carries the cache
// marks. The policy itself is the core's (core/, through conversation.js).
//
// Compaction rewrites only the copy of the history the model sees; the graph
// state keeps every original, which is what makes recall lossless across
// restarts, replicas and ledger evictions.

const { AIMessage, HumanMessage, ToolMessage } = require('@langchain/core/messages')
const { infoOf, toolCallIndex, msgType, markOurs, isOurs, resultOf } = require('./messages.js')
const { resolveOptions, COMPACT_KEYS, stubEarns, codePoints, callArgs, oneLine, resultNote, recallNote } = require('../core/index.js')
const { planFor } = require('./conversation.js')
const { cacheFor, recordOnce, evictedStub } = require('../core/record-cache.js')
const { reporter } = require('../lib/report.js')
const { verifyOffloaded } = require('./offload.js')
const { checkLedger } = require('../lib/options.js')
const { compactStubOf } = require('../lib/block-stub.js')

// ---------------------------------------------------------------------------
// New messages: a ToolMessage with other content, and a cache-marked copy.

function toolMessageWith(m, content, toolMemory) {
  const fields = {
    content,
    tool_call_id: m.tool_call_id,
    additional_kwargs: { ...(m.additional_kwargs || {}) },
    response_metadata: { ...(m.response_metadata || {}), ...(toolMemory ? { tool_memory: toolMemory } : {}) },
  }
  if (m.name !== undefined) fields.name = m.name
  if (m.id !== undefined) fields.id = m.id
  if (m.status !== undefined) fields.status = m.status
  if (m.artifact !== undefined) fields.artifact = m.artifact
  if (m.metadata !== undefined) fields.metadata = m.metadata
  const message = new ToolMessage(fields)
  return toolMemory || isOurs(m) ? markOurs(message) : message
}

const CACHE_CONTROL = Object.freeze({ type: 'ephemeral' })
// Marked copies, per message object: a mark that stays put costs nothing per call.
const marked = new WeakMap()

function withCacheMark(m) {
  const hit = marked.get(m)
  if (hit !== undefined && hit.content === m.content) return hit.message
  const message = markedCopy(m)
  marked.set(m, { content: m.content, message })
  return message
}

// The same message with its content as blocks, the last one carrying
// Anthropic's cache_control: the text is unchanged.
function markedCopy(m) {
  const c = m.content
  let blocks
  if (typeof c === 'string') blocks = [{ type: 'text', text: c, cache_control: CACHE_CONTROL }]
  else {
    blocks = c.map((b) => (typeof b === 'string' ? { type: 'text', text: b } : b))
    const last = blocks.length - 1
    blocks[last] = { ...blocks[last], cache_control: CACHE_CONTROL }
  }
  if (msgType(m) === 'tool') return toolMessageWith(m, blocks, null)
  const fields = {
    content: blocks,
    additional_kwargs: { ...(m.additional_kwargs || {}) },
    response_metadata: { ...(m.response_metadata || {}) },
  }
  if (m.id !== undefined) fields.id = m.id
  if (m.name !== undefined) fields.name = m.name
  switch (msgType(m)) {
    case 'ai':
      if (m.tool_calls !== undefined) fields.tool_calls = m.tool_calls
      if (m.invalid_tool_calls !== undefined) fields.invalid_tool_calls = m.invalid_tool_calls
      if (m.usage_metadata !== undefined) fields.usage_metadata = m.usage_metadata
      return new AIMessage(fields)
    case 'human':
      return new HumanMessage(fields)
    default:
      return typeof m.constructor === 'function' && m.constructor !== Object ? new m.constructor(fields) : { ...m, content: blocks }
  }
}

// ---------------------------------------------------------------------------

// What the model is told of a failed record: never the store's address or
// error text (those go to the app's logger and the recordFailed event).
function discreetReason(err) {
  return err && err.code === 'ERR_SYMFONIC_STORE_TIMEOUT' ? 'the store did not answer' : 'the store failed'
}

// A result over evictChars that could not be recorded is still never sent in
// full: the model gets its head and a plain statement of what happened.
function unarchivedMessage(m, info, previewChars, reason) {
  const head = oneLine(info.text.slice(0, previewChars * 2).replace(/\r\n|[\r\n]/g, ' '), previewChars)
  const text = [
    '[symfonic.tool_memory v1] result not archived',
    `tool=${oneLine(m.name || 'unknown_tool', 128)} call_id=${oneLine(m.tool_call_id, 64)}`,
    `size_original=${info.chars} chars: too large to show in full, and it could not be stored for recall (${reason}).`,
    `preview: ${head}`,
  ].join('\n')
  return toolMessageWith(m, text, { memId: null, compacted: true, failed: true })
}

/**
 * Compacts a copy of `messages` as the policy decides. `env` tells the policy
 * the size of what precedes the messages in the request (core/conversation.js).
 * Answers the copy, and the call priced both ways (`call`, core/plan.js).
 */
async function compact(messages, ledger, o, ns, env) {
  const out = messages.slice()
  // Stubs that offload mode put into the state are compacted already (verified, not trusted).
  const offloaded = []
  for (const m of messages) if (m && m.response_metadata && m.response_metadata.tool_memory) offloaded.push(verifyOffloaded(m, ledger, ns))
  if (offloaded.length > 0) await Promise.all(offloaded)
  const { decisions, marks, call, answered, insane } = planFor(messages, o, env)
  if (decisions.size === 0 && marks.length === 0) return { messages: out, call, answered, insane }
  const report = reporter(o.logger, o.onEvent)
  const cache = cacheFor(ledger)
  // Events are sent once the pass is done, in message order (records finish in any order).
  const events = []
  const compacted = (i, m, decision, memId, message) => {
    if (o.onEvent === undefined) return
    const chars = infoOf(m).chars
    const kind = decision === 'evict' ? 'evict' : message.response_metadata.tool_memory.note ? 'note' : 'stub'
    events.push([
      i,
      { type: 'compacted', kind, toolCallId: m.tool_call_id, toolName: toolNameOf(m), memId, namespace: ns, chars, compactedChars: codePoints(message.content) },
      `${ns}\0${m.tool_call_id}\0${kind}\0${memId}`,
    ])
  }
  let calls = null
  const callOf = (id) => {
    if (calls === null) calls = toolCallIndex(messages)
    return calls.get(id)
  }
  const toolNameOf = (m) => m.name || (callOf(m.tool_call_id) || {}).name || 'unknown_tool'
  const variant = (kind) => (kind === 'evict' ? o.evictPreviewChars : kind === 'rnote' ? -1 : 0)

  // False when the ledger lost the entry (LRU) and it must be recorded again.
  const place = async (i, kind, entry) => {
    const m = messages[i]
    let message
    if (kind === 'evict') {
      const stub = await evictedStub(ledger, entry, ns, o.evictPreviewChars)
      if (stub === null) return false
      message = toolMessageWith(m, stub, { memId: entry.memId, compacted: true })
    } else {
      // A result of blocks is shown by its compact stub, read once from the ledger's text entry.
      if (entry.blocks && entry.compact === undefined) entry.compact = await compactStubOf(ledger, entry.memId, entry.stub, ns)
      message = maskedMessage(m, entry, infoOf(m).chars, toolNameOf(m))
    }
    cache.out.set(m, { content: m.content, ns, variant: variant(kind), message })
    out[i] = message
    compacted(i, m, kind, entry.memId, message)
    return true
  }

  const pending = []
  for (const [i, kind] of decisions) {
    const m = messages[i]
    // Hot path: this very message object was compacted before; nothing crosses into Rust.
    const prev = cache.out.get(m)
    if (prev !== undefined && prev.content === m.content && prev.ns === ns && prev.variant === variant(kind)) {
      out[i] = prev.message
      compacted(i, m, kind, prev.message.response_metadata.tool_memory.memId, prev.message)
      continue
    }
    const info = infoOf(m)
    if (kind === 'rnote') {
      const call = callOf(m.tool_call_id)
      const mem = callArgs(call).mem_id
      const memId = typeof mem === 'string' ? mem : null
      const message = toolMessageWith(m, recallNote(call, info.chars), { memId, compacted: true, note: true })
      cache.out.set(m, { content: m.content, ns, variant: variant(kind), message })
      out[i] = message
      compacted(i, m, kind, memId, message)
      continue
    }
    const key = ns + '\0' + m.tool_call_id
    const entry = cache.byCall.get(key)
    if (entry !== undefined && entry.text === info.text) {
      entry.text = info.text // equal content from a reloaded state: share one string from now on
      if (await place(i, kind, entry)) continue
      cache.byCall.delete(key)
    }
    pending.push(
      recordOnce(ledger, cache, ns, resultOf(m, info, callOf(m.tool_call_id)))
        .then(async (e) => {
          info.memId = e.memId
          if (!(await place(i, kind, e))) out[i] = maskedMessage(m, e, info.chars, toolNameOf(m))
        })
        .catch((err) => {
          // Never fail a model call over compaction: a medium result is sent in
          // full, one over evictChars as a placeholder with its head.
          const reason = String((err && err.message) || err).slice(0, 200)
          if (kind === 'evict') out[i] = unarchivedMessage(m, info, o.evictPreviewChars, discreetReason(err))
          report.warn(`record\0${ns}\0${m.tool_call_id}`, `@symfonic/core: tool result ${m.tool_call_id} (${info.chars} chars) could not be recorded (${reason}); ${kind === 'evict' ? 'the model sees its head only' : 'it is sent in full'}`)
          if (o.onEvent !== undefined) events.push([i, { type: 'recordFailed', toolCallId: m.tool_call_id, toolName: toolNameOf(m), namespace: ns, chars: info.chars, error: reason }, `record\0${ns}\0${m.tool_call_id}`])
        }),
    )
  }
  if (pending.length > 0) await Promise.all(pending)
  for (const j of marks) out[j] = withCacheMark(out[j])
  if (events.length > 0) for (const [, e, key] of events.sort((a, b) => a[0] - b[0])) report.event(e, key)
  return { messages: out, call, answered, insane }
}

// A result the policy compacts, in the form that earns its size: the ledger's
// stub where it is small beside the result, the one-line note otherwise.
function maskedMessage(m, entry, chars, toolName) {
  // A result of blocks keeps a stub: its lines say what each image was and how to see it again.
  if (entry.blocks) return toolMessageWith(m, entry.compact ?? entry.stub, { memId: entry.memId, compacted: true })
  if (stubEarns(chars, codePoints(entry.stub))) return toolMessageWith(m, entry.stub, { memId: entry.memId, compacted: true })
  return toolMessageWith(m, resultNote(toolName, chars, entry.memId), { memId: entry.memId, compacted: true, note: true })
}

const FN = 'compactToolMessages(messages, ledger, options)'

/**
 * Replace old or oversized tool results by ledger stubs in a copy of `messages`.
 * Never mutates the input; idempotent; a pure function of the list and options.
 */
async function compactToolMessages(messages, ledger, options) {
  if (!Array.isArray(messages)) throw new TypeError(`${FN}: messages must be an array of BaseMessage`)
  checkLedger(FN, ledger, ['record', 'stub'])
  const o = resolveOptions(options, FN, COMPACT_KEYS)
  const ns = options && options.namespace != null ? options.namespace : ''
  try {
    return (await compact(messages, ledger, o, ns)).messages
  } catch (e) {
    // A message whose getters throw (or a Proxy) is a programmer's input: say so.
    if (e instanceof TypeError) throw e
    throw new TypeError(`${FN}: a message could not be read (${e && e.message})`)
  }
}

module.exports = { compact, compactToolMessages }
