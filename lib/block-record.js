'use strict'
// A tool result made of content blocks, in a ledger: each image, file or
// document block is an entry of its own (its call id `<toolCallId>#<n>`, n
// its place in the content from 1); the text blocks, with one placeholder
// line per other block, are the result's own entry, stubbed as any text. The
// stub is that entry's stub plus one line per block saying what it is and
// the call that shows it again. Why entries of their own: docs/blocks.md.
//
// A block's entry is its bytes, held as bytes after a head: a line saying
// what it is (facts read from the bytes), a line of JSON (its declared facts,
// `block: 2`); base64 is made again only when a block is given back. A block
// with no bytes (a URL, never fetched; a file id) or whose data is not
// canonical base64 is a text envelope (`ENVELOPE`, the same two lines, then
// the data as given), as every block was before.

const binding = require('./native.js')
const { fail, isPlainObject, checkKeys } = require('./options.js')
const { readAll, canonicalBytes } = require('./blocks.js')

const ENVELOPE = '[symfonic.block v1]'
const KEYS = ['toolCallId', 'toolName', 'toolArgs', 'content', 'namespace', 'ttlSeconds']

/** Facts of a neutral block: read from its bytes (`bytes`, if given, or its data's), or why they cannot be. */
function factsOf(block, bytes = canonicalBytes(block.data)) {
  if (block.data === null) {
    const ref = block.url !== null ? `by URL, not fetched: ${oneLine(block.url, 200)}` : `file id ${oneLine(block.fileId ?? '?', 80)}`
    return { bytes: 0, progressive: false, mismatch: false, opaque: 'a reference', line: `reference (${ref})` }
  }
  if (bytes === null) {
    const n = block.data.length
    return { bytes: 0, progressive: false, mismatch: false, opaque: 'not base64', line: `opaque (not base64), ${n.toLocaleString('en-US')} characters` }
  }
  // Read where the bytes lie, without a copy.
  return binding.describeBlock(bytes, block.mimeType ?? undefined)
}

function oneLine(s, max) {
  const t = String(s).replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' ')
  return t.length > max ? t.slice(0, max - 1) + '…' : t
}

// The two lines of a head: what the block is, and its declared facts.
function headOf(block, facts, n, toolCallId, extra) {
  const meta = { ...extra, type: block.type, mimeType: block.mimeType, url: block.url, fileId: block.fileId, filename: block.filename }
  return `${block.type} ${n} of ${oneLine(toolCallId, 128)}: ${facts.line}\n${JSON.stringify(meta)}`
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
 * is recorded as its text alone, `blocks` empty. `recordBytes(input, head)`
 * records a block's bytes (`input.content`, a Buffer) after `head`.
 */
async function recordBlocks(ledger, input, recordBytes) {
  const where = 'Ledger.recordBlocks(input)'
  checkInput(where, input)
  const { content, ...rest } = input
  const blocks = readAll(content)
  const records = []
  blocks.forEach((block, i) => {
    if (block.type === 'text') return
    const n = i + 1
    const toolCallId = `${input.toolCallId}#${n}`
    // Decoded once; the bytes cross once, when recorded (benchmark/HISTORY.md, issue 40 item 1).
    const bytes = canonicalBytes(block.data)
    const facts = factsOf(block, bytes)
    const b = { index: n, type: block.type, mimeType: block.mimeType, url: block.url, facts }
    const done =
      bytes !== null
        ? recordBytes({ ...rest, toolCallId, content: bytes }, headOf(block, facts, n, input.toolCallId, { block: 2 }))
        : ledger.record({ ...rest, toolCallId, content: `${ENVELOPE} ${headOf(block, facts, n, input.toolCallId, { data: block.data !== null })}\n${block.data ?? ''}` })
    records.push({ b, done })
  })
  const handles = await Promise.all(records.map((r) => r.done))
  const found = records.map((r, i) => ({ ...r.b, memId: handles[i].memId }))
  const at = new Map(found.map((b) => [b.index, b]))
  const parts = blocks.map((block, i) => {
    if (block.type === 'text') return block.text
    const b = at.get(i + 1)
    return `[${block.type} ${b.index}: ${b.facts.line}; mem_id=${b.memId}]`
  })
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
  const entry = await ledger.__block(memId, options)
  if (entry === null) return null
  if (entry !== false) {
    const nul = entry.indexOf(0)
    return parseHead(entry.toString('utf8', 0, nul), entry.subarray(nul + 1), memId)
  }
  // A text entry: a block kept as text (or none). A probe of the head first:
  // a large text entry never crosses whole for nothing.
  const head = await ledger.fetch(memId, { ...options, format: 'full', offset: 0, maxChars: ENVELOPE.length })
  if (head !== ENVELOPE) return null
  const text = await ledger.fetch(memId, { ...options, format: 'full', offset: 0, maxChars: 0 })
  return typeof text === 'string' ? parseEnvelope(text, memId) : null
}

// The declared facts on the second line of an entry's head, or null.
function metaOf(text, a, b) {
  try {
    const meta = JSON.parse(text.slice(a + 1, b))
    return meta !== null && typeof meta === 'object' ? meta : null
  } catch {
    return null
  }
}

// A block as `fetchBlock` gives it; `base64` undefined: made again from the bytes when first read.
function stored(memId, meta, facts, bytes, base64) {
  const out = {
    memId,
    type: meta.type,
    // The sniffed type first: the declaration is kept, never trusted.
    mimeType: facts.mimeType ?? meta.mimeType,
    declaredMimeType: meta.mimeType,
    data: bytes,
    base64,
    url: meta.url,
    fileId: meta.fileId,
    filename: meta.filename,
    facts,
  }
  if (base64 !== undefined) return out
  // Megabytes of text for a screenshot: made once, and only for a caller that reads it.
  Object.defineProperty(out, 'base64', {
    enumerable: true,
    configurable: true,
    get() {
      const text = bytes.toString('base64')
      Object.defineProperty(out, 'base64', { value: text, enumerable: true, writable: true })
      return text
    },
  })
  return out
}

/** A block entry (its head and bytes) as `fetchBlock` gives it; null for a head of no block. */
function parseHead(head, bytes, memId) {
  const a = head.indexOf('\n')
  const meta = a < 0 ? null : metaOf(head, a, head.length)
  if (meta === null || meta.block !== 2) return null
  return stored(memId, meta, binding.describeBlock(bytes, meta.mimeType ?? undefined), bytes, undefined)
}

/** A text envelope (a block with no bytes, or recorded before bytes) as `fetchBlock` gives it; null for other text. */
function parseEnvelope(text, memId) {
  if (!text.startsWith(ENVELOPE)) return null
  const a = text.indexOf('\n')
  const b = text.indexOf('\n', a + 1)
  if (a < 0 || b < 0) return null
  const meta = metaOf(text, a, b)
  if (meta === null) return null
  // Whether it carried data (beside a URL, or none at all): said since blocks are bytes; before, data meant no reference.
  const carried = typeof meta.data === 'boolean' ? meta.data : meta.url === null && meta.fileId === null
  const data = carried ? text.slice(b + 1) : null
  const block = { type: meta.type, mimeType: meta.mimeType, data, url: meta.url, fileId: meta.fileId, filename: meta.filename }
  const bytes = canonicalBytes(data)
  return stored(memId, meta, factsOf(block, bytes), bytes, data)
}

module.exports = { recordBlocks, fetchBlock, parseEnvelope, parseHead, factsOf, blockLine, ENVELOPE }
