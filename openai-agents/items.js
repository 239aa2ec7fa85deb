'use strict'
// The Agents SDK's model input items as the core's plain data
// (core/conversation.js). One model response is several items (its message,
// its reasoning, one `function_call` per call): consecutive ones are one
// plain 'assistant' message, as the core counts one per call. A
// `function_call_result` is a 'tool' message. Plain objects are cached per
// item object (the filter asks the SDK for the items themselves,
// `preserveInputIdentity`), so the core resumes its replay of the list.

const { callsSize, codePoints } = require('../core/index.js')

const isAssistantPart = (it) => it.type === 'function_call' || it.type === 'reasoning' || (it.role === 'assistant' && (it.type === undefined || it.type === 'message'))

// The text of a content value: a string, or its text parts (input_text,
// output_text, text, refusal). `textOnly` is false when a part is not text.
function contentText(c) {
  if (typeof c === 'string') return { text: c, textOnly: true }
  if (c !== null && typeof c === 'object' && !Array.isArray(c)) c = [c]
  if (!Array.isArray(c)) return { text: '', textOnly: false }
  let text = ''
  let textOnly = true
  for (const p of c) {
    if (typeof p === 'string') text += p
    else if (p && (p.type === 'input_text' || p.type === 'output_text' || p.type === 'text') && typeof p.text === 'string') text += p.text
    else if (p && p.type === 'refusal' && typeof p.refusal === 'string') text += p.refusal
    else textOnly = false
  }
  return { text, textOnly }
}

// A function call's arguments as the model sent them: JSON text, parsed once.
const argsCache = new WeakMap()
function argsOf(item) {
  let a = argsCache.get(item)
  if (a === undefined || a.raw !== item.arguments) {
    let value = {}
    try {
      value = typeof item.arguments === 'string' ? JSON.parse(item.arguments) : item.arguments ?? {}
    } catch {
      value = { _raw: String(item.arguments) } // what a model sent that is not JSON: kept, for the note
    }
    a = { raw: item.arguments, value }
    argsCache.set(item, a)
  }
  return a.value
}

// The replacements and marked copies we made: known as ours by identity,
// never by content (a tool's output may well start with our stub header).
const ours = new WeakSet()
const markOurs = (item) => (ours.add(item), item)
const isOurs = (item) => item !== null && typeof item === 'object' && ours.has(item)

// The output of a function_call_result, as compaction reads it.
const infoCache = new WeakMap()
function resultInfo(item) {
  const output = item.output
  let info = infoCache.get(item)
  if (info !== undefined && info.output === output) return info
  const { text, textOnly } = contentText(output)
  const compacted = isOurs(item)
  info = { output, text, textOnly, compacted, chars: compacted || !textOnly ? 0 : codePoints(text) }
  infoCache.set(item, info)
  return info
}

// item (a group's first) -> { items, plain }
const plainCache = new WeakMap()

// The plain message of items[from..to] (one model response), from the cache when unchanged.
function plainOfGroup(items, from, to) {
  const hit = plainCache.get(items[from])
  if (hit !== undefined && hit.items.length === to - from + 1) {
    let same = true
    for (let j = 0; same && j < hit.items.length; j++) same = hit.items[j] === items[from + j] && hit.guards[j] === guardOf(items[from + j])
    if (same) return hit.plain
  }
  const group = items.slice(from, to + 1)
  let text = ''
  let size = 0
  const calls = []
  for (const it of group) {
    if (it.type === 'function_call') calls.push({ id: it.callId, name: it.name, args: argsOf(it) })
    else if (it.type !== 'reasoning') {
      const t = contentText(it.content).text
      text += t
      size += t.length
    }
  }
  // Markable with text, as a LangChain AIMessage is (the mark goes in the providerData of its
  // last call or message, compact.js). Its tool calls could take one without text too; marking
  // those as well moved two recorded conversations 4 to 6 % off the middleware (benchmark/HISTORY.md).
  const plain = { role: 'assistant', size: size + callsSize(calls), text, markable: text.length > 0, calls }
  plainCache.set(group[0], { items: group.slice(), guards: group.map(guardOf), plain })
  return plain
}

const guardOf = (it) => (it.type === 'function_call' ? it.arguments : it.content)

function plainOfItem(it) {
  const hit = plainCache.get(it)
  const guard = it.type === 'function_call_result' ? resultInfo(it) : it.content
  if (hit !== undefined && hit.guard === guard) return hit.plain
  let plain
  if (it.type === 'function_call_result') {
    const info = guard
    plain = { role: 'tool', size: info.text.length, text: info.text, markable: info.text.length > 0, callId: it.callId, name: it.name, chars: info.chars, textOnly: info.textOnly, ours: info.compacted }
  } else if (it.role === 'user' && (it.type === undefined || it.type === 'message')) {
    const { text } = contentText(it.content)
    plain = { role: 'user', size: text.length, text, markable: text.length > 0 }
  } else {
    // system / developer messages, hosted tool calls and their outputs: priced by their text, never compacted.
    const { text } = contentText(it.content)
    plain = { role: 'system', size: text.length, text, markable: false }
  }
  plainCache.set(it, { guard, plain })
  return plain
}

/**
 * The plain messages of `items`, and for each one the index of the item that
 * carries it (its last item for an assistant group).
 */
function plainMessages(items) {
  const plain = []
  const at = []
  for (let i = 0; i < items.length; i++) {
    const it = items[i]
    if (it === null || typeof it !== 'object') {
      plain.push({ role: 'system', size: 0, text: '', markable: false })
      at.push(i)
      continue
    }
    if (isAssistantPart(it)) {
      let j = i
      while (j + 1 < items.length && items[j + 1] !== null && typeof items[j + 1] === 'object' && isAssistantPart(items[j + 1])) j++
      plain.push(plainOfGroup(items, i, j))
      at.push(j)
      i = j
      continue
    }
    plain.push(plainOfItem(it))
    at.push(i)
  }
  return { plain, at }
}

module.exports = { plainMessages, resultInfo, argsOf, contentText, markOurs, isOurs, isAssistantPart }
