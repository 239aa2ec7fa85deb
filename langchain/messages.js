'use strict'
// What compaction reads from LangChain messages: their kind, the text of a
// ToolMessage (computed once per message object), the tool calls of the
// AIMessages, and which messages are ours. No ledger here; conversation.js
// maps them to the core's plain data.

const { codePoints, callArgs, imageTokens } = require('../core/index.js')
const { readBlocks, canonicalBytes } = require('../lib/blocks.js')
const { describeBlock, memIdFor } = require('../lib/native.js')

// A token is about four characters of text: images and documents are priced
// in those characters, at the larger of the two providers' formulas (the
// policy's decisions count characters; the cache model is per call).
const CHARS_PER_TOKEN = 4
const PDF_PAGE_TOKENS = 1500

function msgType(m) {
  if (m == null || typeof m !== 'object') return undefined
  if (typeof m.type === 'string') return m.type
  return typeof m._getType === 'function' ? m._getType() : undefined
}
const isTool = (m) => msgType(m) === 'tool'
const isAI = (m) => msgType(m) === 'ai'

// The text of a content value: a string, or the text blocks of a block list.
// `textOnly` is false when a block is not text (images cannot be recalled as text).
function contentText(content) {
  if (typeof content === 'string') return { text: content, textOnly: true }
  if (!Array.isArray(content)) return { text: '', textOnly: false }
  const parts = []
  let textOnly = true
  for (const block of content) {
    if (typeof block === 'string') parts.push(block)
    else if (block && block.type === 'text' && typeof block.text === 'string') parts.push(block.text)
    else textOnly = false
  }
  return { text: parts.join(''), textOnly }
}

// The messages compaction made (stubs, notes, placeholders and their marked
// copies). Whether a message is already compacted is known from this set
// alone, never from its content or metadata, which a tool or a model controls
// (a web page may well begin with our stub header).
const ours = new WeakSet()
const markOurs = (m) => {
  ours.add(m)
  return m
}
const isOurs = (m) => m !== null && typeof m === 'object' && ours.has(m)
// A message from the state that is verifiably one of ours (an offloaded stub,
// checked against the ledger): known as compacted from now on.
const adoptAsOurs = (m) => {
  ours.add(m)
  infoCache.delete(m)
}

// What compaction needs to know about one ToolMessage object, computed once.
// Keyed by the message object; `content` guards against in-place edits.
const infoCache = new WeakMap()

function infoOf(m) {
  const content = m.content
  let info = infoCache.get(m)
  if (info !== undefined && info.content === content) return info
  const { text, textOnly } = contentText(content)
  const compacted = isOurs(m)
  info = { content, text, textOnly, compacted, chars: compacted || !textOnly ? 0 : codePoints(text), memId: null, blocks: null, mediaChars: 0 }
  const blocks = compacted || textOnly ? null : readBlocks(content)
  if (blocks !== null) blockInfo(info, blocks)
  infoCache.set(m, info)
  return info
}

// A result made of content blocks (images, documents beside text): recorded
// block by block (Ledger.recordBlocks). Its `text` is its text blocks and one
// line per other block naming its hash, so equal content is known as equal
// without comparing megabytes of base64 again; `chars` adds what each block
// costs a model, in characters.
function blockInfo(info, blocks) {
  const lines = []
  let media = 0
  for (const b of blocks) {
    if (b.type === 'text') {
      lines.push(b.text)
      continue
    }
    const data = b.data ?? ''
    // Decoded once: its bytes are hashed (a Buffer crosses, not the base64 text) and priced.
    const bytes = data === '' ? null : canonicalBytes(data)
    lines.push(`[${b.type} ${b.mimeType ?? ''} ${data.length} ${data === '' ? (b.url ?? b.fileId ?? '') : memIdFor('', bytes ?? data)}]`)
    media += CHARS_PER_TOKEN * blockTokens(b, data, bytes)
  }
  info.blocks = blocks
  info.text = lines.join('\n')
  info.mediaChars = media
  info.chars = codePoints(info.text) + media
}

function blockTokens(b, data, bytes) {
  if (bytes === null) return Math.ceil(data.length / CHARS_PER_TOKEN)
  const f = describeBlock(bytes, b.mimeType ?? undefined)
  if (f.format === 'pdf') return (f.pages ?? 1) * PDF_PAGE_TOKENS
  if (f.width === undefined) return Math.ceil(data.length / CHARS_PER_TOKEN)
  return Math.max(imageTokens(f.width, f.height, 'anthropic'), imageTokens(f.width, f.height, 'openai'))
}

// tool_call_id -> { name, args } from the AIMessages.
function toolCallIndex(messages) {
  const index = new Map()
  for (const m of messages) {
    if (!isAI(m) || !Array.isArray(m.tool_calls)) continue
    for (const call of m.tool_calls) if (call && call.id) index.set(call.id, call)
  }
  return index
}

// A ToolMessage as the record cache records it (core/record-cache.js).
function resultOf(m, info, call) {
  const r = { callId: m.tool_call_id, toolName: m.name || (call && call.name) || 'unknown_tool', text: info.text, args: callArgs(call) }
  if (info.blocks !== null) r.blocks = m.content
  return r
}

module.exports = { resultOf, markOurs, isOurs, adoptAsOurs, msgType, isTool, isAI, contentText, infoOf, toolCallIndex }
