'use strict'
// A LangChain model request as the core's ruler reads it (core/request-cost.js):
// the bound tools' definitions as one string, then each message the model
// receives (the system message first, as createAgent prepends it) as one
// string. `npm run bench:context` records its requests with the same
// functions, so the usage report and the bench price the same thing.

const { messageText } = require('../core/request-cost.js')
const { RECALL_TOOL_NAME } = require('../core/options.js')

const texts = new WeakMap() // message -> { content, text }
const toolTexts = new WeakMap() // tool -> its definition as JSON

/** One message as the provider receives it (cached per message object and content). */
function messageTextOf(m) {
  if (m === null || typeof m !== 'object') return messageText({ type: undefined, content: m })
  const hit = texts.get(m)
  if (hit !== undefined && hit.content === m.content) return hit.text
  const type = typeof m._getType === 'function' ? m._getType() : m.type
  // An assistant message's `name` (createAgent names each AIMessage `model`) is left out: Anthropic and
  // OpenAI's Responses API never receive it; only Chat Completions does (benchmark/HISTORY.md, 2026-12-06).
  const name = type === 'ai' ? undefined : m.name
  const text = messageText({ type, name, id: m.tool_call_id, content: m.content, calls: m.tool_calls })
  texts.set(m, { content: m.content, text })
  return text
}

function toolText(t) {
  if (t === null || typeof t !== 'object') return JSON.stringify(t) ?? 'null'
  let s = toolTexts.get(t)
  if (s === undefined) {
    const { convertToOpenAITool } = require('@langchain/core/utils/function_calling')
    try {
      s = JSON.stringify(t.schema ? convertToOpenAITool(t) : t) ?? 'null'
    } catch {
      s = 'null' // a definition that cannot be serialised: its size is unknown, not an error
    }
    toolTexts.set(t, s)
  }
  return s
}

/** The tool definitions of a request as one JSON array, in order. */
const toolsText = (tools) => `[${tools.map(toolText).join(',')}]`

/** Whether a message carries an Anthropic cache_control mark (on any content block). */
const hasCacheMark = (m) => m != null && Array.isArray(m.content) && m.content.some((b) => b && typeof b === 'object' && b.cache_control != null)

/**
 * The requests of one thread, as the model receives them (`ours`) and
 * without compaction (`none`): `{ tools, messages, marked }` strings. The
 * last list is kept, so a list that extends it (the same message objects)
 * serialises only its new messages. `system`: the system message (prepended
 * when it has text, as createAgent does), or null. A request answered is
 * valid until the next call (its arrays are the kept ones).
 */
function threadRequests() {
  const sent = { list: [], texts: [], marks: [] }
  const orig = { list: [], texts: [], marks: [], upTo: [], recallIds: new Set() }
  // How many leading messages of `list` are the kept list's (the same objects).
  const shared = (kept, list) => {
    const n = Math.min(kept.length, list.length)
    let i = 0
    while (i < n && kept[i] === list[i]) i++
    return i
  }
  return {
    ours(tools, system, messages) {
      const all = withSystem(system, messages)
      const i = shared(sent.list, all)
      sent.texts.length = i
      sent.marks.length = i
      for (let j = i; j < all.length; j++) {
        sent.texts.push(messageTextOf(all[j]))
        sent.marks.push(hasCacheMark(all[j]))
      }
      sent.list = all
      return { tools: toolsText(tools), messages: sent.texts, marked: sent.marks }
    },
    none(tools, system, messages) {
      const all = withSystem(system, messages)
      const i = shared(orig.list, all)
      if (i < orig.list.length) {
        // A list that does not extend the last: start again (the recall calls seen are the list's own).
        orig.texts.length = 0
        orig.marks.length = 0
        orig.upTo.length = 0
        orig.recallIds = new Set()
        orig.list = []
        return this.none(tools, system, messages)
      }
      for (let j = i; j < all.length; j++) {
        const m = noneForm(all[j], orig.recallIds)
        if (m !== null) {
          orig.texts.push(messageTextOf(m))
          orig.marks.push(hasCacheMark(m))
        }
        orig.upTo.push(orig.texts.length)
      }
      orig.list = all
      return { tools: toolsText(tools.filter((t) => !(t && t.name === RECALL_TOOL_NAME))), messages: orig.texts, marked: orig.marks }
    },
  }
}

const withSystem = (system, messages) => (system != null && system.text !== '' && system.content !== '' ? [system, ...messages] : messages)

const isRecallCall = (c) => c != null && c.name === RECALL_TOOL_NAME

// A message as the conversation without compaction has it: null for a recall
// call or its answer, the calls less the recalls for a message with both.
function noneForm(m, recallIds) {
  const calls = m != null && Array.isArray(m.tool_calls) ? m.tool_calls : []
  const recalls = calls.filter(isRecallCall)
  for (const c of recalls) if (c.id) recallIds.add(c.id)
  if (recalls.length > 0 && recalls.length === calls.length && !m.content) return null
  if (m != null && m.tool_call_id !== undefined && (recallIds.has(m.tool_call_id) || m.name === RECALL_TOOL_NAME)) return null
  if (recalls.length === 0) return m
  let form = noneForms.get(m)
  if (form === undefined) noneForms.set(m, (form = { type: 'ai', name: m.name, content: m.content, tool_calls: calls.filter((c) => !isRecallCall(c)) }))
  return form
}
const noneForms = new WeakMap()

module.exports = { messageTextOf, toolsText, hasCacheMark, threadRequests }
