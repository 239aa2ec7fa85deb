'use strict'
// Offload mode: a result larger than `evictChars` goes to the ledger (and so
// to its store) when the tool returns it, and the graph state gets the stub
// instead of the payload, so checkpoints never hold it. The model sees the
// same stub it would see without offload (the evicted stub compaction makes),
// and recall answers from the store, after a restart and on another replica.

const { ToolMessage } = require('@langchain/core/messages')
const { infoOf, isOurs, adoptAsOurs, markOurs, isTool } = require('./messages.js')
const { callArgs } = require('../core/index.js')
const { blockLine } = require('../lib/block-record.js')
const { BLOCK_LINE, compactStubOf } = require('../lib/block-stub.js')

// The stub of a result of blocks: the ledger's stub of its text, then one line
// per block (docs/blocks.md). `blocks` as `recordBlocks` gives them.
async function blocksStub(ledger, memId, blocks, ns, previewChars) {
  const head = await ledger.stub(memId, previewChars === undefined ? { namespace: ns } : { namespace: ns, previewChars })
  if (typeof head !== 'string') return null
  return [head, ...blocks.map(blockLine)].join('\n')
}

// The blocks a stub read back from a checkpoint names, as the ledger holds them
// (each line is checked when the stub is rebuilt from them).
async function namedBlocks(ledger, text, ns) {
  const out = []
  for (const line of text.split('\n')) {
    const m = BLOCK_LINE.exec(line)
    if (m === null) continue
    const b = await ledger.fetchBlock(m[2], { namespace: ns })
    if (b === null) return null
    out.push({ index: Number(m[1]), memId: m[2], type: b.type, facts: b.facts })
  }
  return out
}

// The state's offloaded stubs, verified once per message object.
const verified = new WeakMap()

/**
 * Whether `m`, read back from a checkpoint, is a stub offload put there: its
 * marker names a memId and its text is exactly the ledger's stub for it. The
 * marker alone is never trusted (a tool could write it): the text must match.
 */
async function verifyOffloaded(m, ledger, ns) {
  if (!isTool(m) || isOurs(m)) return
  const tm = m.response_metadata && m.response_metadata.tool_memory
  if (!tm || tm.offloaded !== true || typeof tm.memId !== 'string') return
  let ok = verified.get(m)
  if (ok === undefined) {
    try {
      const previewChars = Number.isSafeInteger(tm.previewChars) && tm.previewChars >= 0 ? tm.previewChars : undefined
      const blocks = tm.blocks === true && typeof m.content === 'string' ? await namedBlocks(ledger, m.content, ns) : []
      const stub = blocks === null ? null : tm.blocks === true ? await blocksStub(ledger, tm.memId, blocks, ns, previewChars) : await ledger.stub(tm.memId, previewChars === undefined ? { namespace: ns } : { namespace: ns, previewChars })
      // A result of blocks is kept by its compact stub (checkpoints from before it hold the full one).
      ok = typeof stub === 'string' && (stub === m.content || (tm.blocks === true && (await compactStubOf(ledger, tm.memId, stub, ns)) === m.content))
    } catch {
      ok = false
    }
    verified.set(m, ok)
  }
  if (ok) adoptAsOurs(m)
}

/**
 * The tool's result as the state should keep it: the stub of a result over
 * `evictChars`, recorded first (write-through: the store has it), else the
 * result itself. A result that cannot be recorded stays in the state in full
 * (nothing is lost) and compaction keeps it out of the prompt.
 */
async function offloaded(result, request, ledger, policy, ns, report) {
  if (!ToolMessage.isInstance(result) || !result.tool_call_id) return result
  const info = infoOf(result)
  // Images and documents never stay in the state: checkpoints would hold their bytes at every step.
  const blocks = info.blocks !== null
  if (!info.textOnly && !blocks) return result
  const call = request.toolCall || {}
  const name = result.name || call.name || 'unknown_tool'
  const t = policy.perTool.get(name) || {}
  if (policy.exemptTools.has(name)) return result
  if (!blocks && info.chars <= (t.evictChars ?? policy.evictChars)) return result
  let stub
  let memId
  try {
    const input = { toolCallId: result.tool_call_id, toolName: name, toolArgs: callArgs(call), content: blocks ? result.content : info.text, namespace: ns }
    const handle = blocks ? await ledger.recordBlocks(input) : await ledger.record(input)
    memId = handle.memId
    // A result of blocks gets the stub compaction shows it by, not an evicted one.
    stub = blocks ? await compactStubOf(ledger, memId, handle.stub, ns) : await ledger.stub(memId, { namespace: ns, previewChars: policy.evictPreviewChars })
    if (typeof stub !== 'string') throw new Error('the ledger lost the entry it just recorded')
  } catch (err) {
    const reason = String((err && err.message) || err).slice(0, 200)
    report.warn(`offload\0${ns}\0${result.tool_call_id}`, `@symfonic/core: tool result ${result.tool_call_id} (${info.chars} chars) could not be offloaded (${reason}); the state keeps it in full`)
    return result
  }
  report.event({ type: 'offloaded', toolCallId: result.tool_call_id, toolName: name, memId, namespace: ns, chars: info.chars, stubChars: stub.length })
  const fields = {
    content: stub,
    tool_call_id: result.tool_call_id,
    name: result.name,
    additional_kwargs: { ...(result.additional_kwargs || {}) },
    response_metadata: { ...(result.response_metadata || {}), tool_memory: { memId, compacted: true, offloaded: true, ...(blocks ? { blocks: true } : { previewChars: policy.evictPreviewChars }) } },
  }
  if (result.id !== undefined) fields.id = result.id
  if (result.status !== undefined) fields.status = result.status
  if (result.artifact !== undefined) fields.artifact = result.artifact
  return markOurs(new ToolMessage(fields))
}

/**
 * The results of blocks offloaded since the model's last message, rebuilt
 * from the ledger for this request: the model sees each screenshot once, as
 * without offload, and only its stub after that. The state keeps the stubs.
 */
async function withFreshBlocks(messages, ledger, ns) {
  let last = messages.length - 1
  while (last >= 0 && isTool(messages[last])) last--
  let out = messages
  for (let i = last + 1; i < messages.length; i++) {
    const m = messages[i]
    const tm = m.response_metadata && m.response_metadata.tool_memory
    if (!tm || tm.blocks !== true) continue
    await verifyOffloaded(m, ledger, ns)
    if (!isOurs(m)) continue
    try {
      const text = await ledger.fetch(tm.memId, { namespace: ns, format: 'full', maxChars: 0 })
      const blocks = await Promise.all([...m.content.matchAll(/recall_tool_result\(mem_id="(trm_[0-9a-f]{12})"\)$/gm)].map((x) => ledger.fetchBlock(x[1], { namespace: ns })))
      if (typeof text !== 'string' || blocks.includes(null)) continue
      const content = [{ type: 'text', text }, ...blocks.filter((b) => b.data !== null && b.facts.format).map((b) => ({ type: b.facts.format === 'pdf' ? 'file' : 'image', data: b.base64, mimeType: b.mimeType }))]
      if (out === messages) out = messages.slice()
      out[i] = new ToolMessage({ content, tool_call_id: m.tool_call_id, name: m.name, id: m.id, status: m.status })
    } catch {
      // the stub stays: the model can recall the blocks
    }
  }
  return out
}

/**
 * For `createReactAgent`, whose pre-model hook runs after the state has a
 * result: the same tools, wrapped so that each result over `evictChars` is
 * offloaded as the middleware's `wrapToolCall` does.
 */
function offloadingTools(tools, ledger, policy, nsOf, report, fn) {
  if (!Array.isArray(tools)) throw new TypeError(`${fn}: tools must be an array of LangChain tools`)
  const { tool } = require('@langchain/core/tools')
  return tools.map((t, i) => {
    if (t === null || typeof t !== 'object' || typeof t.invoke !== 'function' || typeof t.name !== 'string') {
      throw new TypeError(`${fn}: tools[${i}] is not a LangChain tool (it needs a name and invoke())`)
    }
    return tool(
      async (input, config) => {
        const call = config && config.toolCall
        if (!call || !call.id) return t.invoke(input, config) // not called by a tool node: nothing to offload into
        const out = await t.invoke({ ...call, type: 'tool_call' }, config)
        const message = ToolMessage.isInstance(out) ? out : new ToolMessage({ content: typeof out === 'string' ? out : JSON.stringify(out), tool_call_id: call.id, name: t.name })
        return offloaded(message, { toolCall: call }, ledger, policy, nsOf(config), report)
      },
      { name: t.name, description: t.description, schema: t.schema, responseFormat: t.responseFormat },
    )
  })
}

module.exports = { withFreshBlocks, offloaded, verifyOffloaded, offloadingTools }
