'use strict'
// A tool result made of content blocks, in a ledger: each image, file or
// document block is an entry of its own (its call id `<toolCallId>#<n>`, n
// its place in the content from 1), whose payload is an envelope (a line of
// facts read from the bytes, a line of JSON, then the data as given: base64
// text, or the URL, never fetched); the text blocks, with one placeholder
// line per other block, are the result's own entry, stubbed as any text. The
// stub is that entry's stub plus one line per block saying what it is and
// the call that shows it again. Why entries of their own: docs/blocks.md.

const binding = require('./native.js')
const { fail, isPlainObject, checkKeys } = require('./options.js')
const { readBlocks, isBase64 } = require('./blocks.js')

const ENVELOPE = '[symfonic.block v1]'
const KEYS = ['toolCallId', 'toolName', 'toolArgs', 'content', 'namespace', 'ttlSeconds']

/** Facts of a neutral block: read from its bytes, or why they cannot be. */
function factsOf(block) {
  if (block.data === null) {
    const ref = block.url !== null ? `by URL, not fetched: ${oneLine(block.url, 200)}` : `file id ${oneLine(block.fileId ?? '?', 80)}`
    return { bytes: 0, progressive: false, mismatch: false, opaque: 'a reference', line: `reference (${ref})` }
  }
  if (!isBase64(block.data)) {
    const n = block.data.length
    return { bytes: 0, progressive: false, mismatch: false, opaque: 'not base64', line: `opaque (not base64), ${n.toLocaleString('en-US')} characters` }
  }
  return binding.describeBlock(Buffer.from(block.data, 'base64'), block.mimeType ?? undefined)
}

function oneLine(s, max) {
  const t = String(s).replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' ')
  return t.length > max ? t.slice(0, max - 1) + '…' : t
}

function envelope(block, facts, n, toolCallId) {
  const meta = { type: block.type, mimeType: block.mimeType, url: block.url, fileId: block.fileId, filename: block.filename }
  return `${ENVELOPE} ${block.type} ${n} of ${oneLine(toolCallId, 128)}: ${facts.line}\n${JSON.stringify(meta)}\n${block.data ?? ''}`
}

function blockLine(b) {
  return `block ${b.index}: ${b.type} ${b.facts.line}. To see it again: recall_tool_result(mem_id="${b.memId}")`
}

function checkInput(where, input) {
  if (!isPlainObject(input)) throw fail(where, 'input must be an object { toolCallId, toolName, content }', input)
  checkKeys(where, input, KEYS)
  if (!Array.isArray(input.content)) throw fail(where, 'content must be an array of content blocks', input.content)
  if (typeof input.toolCallId !== 'string' || input.toolCallId === '') throw fail(where, 'toolCallId must be a non-empty string', input.toolCallId)
}

/**
 * Records a result made of content blocks (see the header). Resolves to the
 * text entry's handle with the stub that lists every block, and `blocks`
 * (each block's memId, type, facts); a content with no image or file block
 * is recorded as its text alone, `blocks` empty.
 */
async function recordBlocks(ledger, input) {
  const where = 'Ledger.recordBlocks(input)'
  checkInput(where, input)
  const { content, ...rest } = input
  const blocks = readBlocks(content) ?? content.map((b) => ({ type: 'text', text: typeof b === 'string' ? b : (b?.text ?? JSON.stringify(b)) }))
  const parts = []
  const records = []
  blocks.forEach((block, i) => {
    if (block.type === 'text') {
      parts.push(block.text)
      return
    }
    const n = i + 1
    const facts = factsOf(block)
    const toolCallId = `${input.toolCallId}#${n}`
    const payload = envelope(block, facts, n, input.toolCallId)
    const memId = binding.memIdFor(toolCallId, payload)
    const b = { index: n, memId, type: block.type, mimeType: block.mimeType, url: block.url, facts }
    parts.push(`[${block.type} ${n}: ${facts.line}; mem_id=${memId}]`)
    records.push({ b, input: { ...rest, toolCallId, content: payload } })
  })
  const handles = await Promise.all(records.map((r) => ledger.record(r.input)))
  const found = records.map((r, i) => ({ ...r.b, memId: handles[i].memId }))
  const handle = await ledger.record({ ...rest, content: parts.join('\n') })
  const stub = found.length === 0 ? handle.stub : `${handle.stub}\n${found.map(blockLine).join('\n')}`
  return { ...handle, stub, blocks: found }
}

/**
 * A block recorded by `recordBlocks`: its bytes (a Buffer, null for a URL or
 * data that is not base64), the data as given, and its facts; null when the
 * entry is not a block (or is gone).
 */
async function fetchBlock(ledger, memId, options) {
  // A probe of the head first: a large text entry never crosses whole for nothing.
  const head = await ledger.fetch(memId, { ...options, format: 'full', offset: 0, maxChars: ENVELOPE.length })
  if (head !== ENVELOPE) return null
  const text = await ledger.fetch(memId, { ...options, format: 'full', offset: 0, maxChars: 0 })
  return typeof text === 'string' ? parseEnvelope(text, memId) : null
}

function parseEnvelope(text, memId) {
  if (!text.startsWith(ENVELOPE)) return null
  const a = text.indexOf('\n')
  const b = text.indexOf('\n', a + 1)
  if (a < 0 || b < 0) return null
  let meta
  try {
    meta = JSON.parse(text.slice(a + 1, b))
  } catch {
    return null
  }
  const data = meta.url === null && meta.fileId === null ? text.slice(b + 1) : null
  const block = { type: meta.type, mimeType: meta.mimeType, data, url: meta.url, fileId: meta.fileId, filename: meta.filename }
  const facts = factsOf(block)
  return {
    memId,
    type: meta.type,
    // The sniffed type first: the declaration is kept, never trusted.
    mimeType: facts.mimeType ?? meta.mimeType,
    declaredMimeType: meta.mimeType,
    data: isBase64(data) ? Buffer.from(data, 'base64') : null,
    base64: data,
    url: meta.url,
    fileId: meta.fileId,
    filename: meta.filename,
    facts,
  }
}

module.exports = { recordBlocks, fetchBlock, parseEnvelope, factsOf, blockLine, ENVELOPE }
