'use strict'
// Content blocks as LangChain.js users meet them, read into one neutral form
// with no framework type: the standard `{ type: 'image' | 'file', data | url,
// mimeType }` (and its v0 spelling `source_type` / `mime_type`), the legacy
// `image_url` (data URLs too), Anthropic's `image` / `document` with a
// `source`, OpenAI's `input_image` / `input_file` and Chat Completions'
// `file`. Reading never throws: a block it cannot read keeps its original
// (as JSON text), and base64 that is not base64 is kept as given, opaque.
//
// The neutral form:
//   { type: 'text', text }
//   { type: 'image' | 'file', mimeType, data, url, fileId, filename }
// `data` is base64 text as given (or null), `url` a reference never fetched.

const DATA_URL = /^data:([^;,]*)((?:;[^;,]*)*?);base64,/i

/**
 * The bytes of canonical base64 (the alphabet with `+` and `/`, padded, no
 * whitespace, unused bits 0: what encodes back to the same text), else null.
 */
function canonicalBytes(s) {
  if (typeof s !== 'string' || s.length % 4 !== 0) return null
  // Decoding is lenient (it skips what is not base64, takes the URL-safe
  // alphabet): text is canonical when its bytes encode back to it. A fifth of
  // the time of a regex over it (benchmark/HISTORY.md, issue 40 item 1).
  const bytes = Buffer.from(s, 'base64')
  return bytes.toString('base64') === s ? bytes : null
}

/** Whether `s` is canonical base64 (see `canonicalBytes`). */
function isBase64(s) {
  return canonicalBytes(s) !== null
}

/** `{ mimeType, data }` of a `data:…;base64,` URL, or null. */
function parseDataUrl(url) {
  if (typeof url !== 'string') return null
  const m = DATA_URL.exec(url.slice(0, 512))
  if (m === null) return null
  return { mimeType: m[1] === '' ? null : m[1].toLowerCase(), data: url.slice(m[0].length) }
}

function str(v) {
  return typeof v === 'string' && v !== '' ? v : null
}

// Bytes given as a Uint8Array (the standard block allows it) become base64 text.
function dataOf(v) {
  if (typeof v === 'string') return v
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64')
  return null
}

function media(type, mimeType, data, url, extra) {
  const fromUrl = data === null ? parseDataUrl(url) : null
  return {
    type,
    mimeType: str(mimeType) ?? fromUrl?.mimeType ?? null,
    data: fromUrl ? fromUrl.data : data,
    url: fromUrl ? null : str(url),
    fileId: str(extra?.fileId),
    filename: str(extra?.filename),
  }
}

// Anthropic's `source`: base64, url, text (a plain-text document), file.
function fromSource(type, src, b) {
  if (src === null || typeof src !== 'object') return null
  if (src.type === 'text' && typeof src.data === 'string') return { type: 'text', text: src.data }
  const t = type === 'document' ? 'file' : 'image'
  return media(t, src.media_type, src.type === 'base64' ? dataOf(src.data) : null, src.type === 'url' ? src.url : null, {
    fileId: src.file_id,
    filename: b.title,
  })
}

/** One block in the neutral form; null when it is none of the forms above. */
function readBlock(b) {
  if (typeof b === 'string') return { type: 'text', text: b }
  if (b === null || typeof b !== 'object') return null
  switch (b.type) {
    case 'text':
    case 'input_text':
    case 'output_text':
      return typeof b.text === 'string' ? { type: 'text', text: b.text } : null
    case 'image':
    case 'document':
      if (b.source !== undefined) return fromSource(b.type, b.source, b)
      if (b.type === 'document') return null
    // falls through: a standard image block
    case 'file':
      if (b.type === 'file' && b.file !== null && typeof b.file === 'object') {
        // OpenAI Chat Completions: { type: 'file', file: { file_data, file_id, filename } }
        const f = b.file
        const raw = str(f.file_data)
        return media('file', null, parseDataUrl(raw) ? null : raw, parseDataUrl(raw) ? raw : null, { fileId: f.file_id, filename: f.filename })
      }
      return media(
        b.type,
        b.mimeType ?? b.mime_type,
        b.source_type === 'url' || b.source_type === 'id' ? null : dataOf(b.data),
        b.url ?? (b.source_type === 'url' ? b.data : null),
        { fileId: b.fileId ?? b.file_id ?? (b.source_type === 'id' ? b.id : null), filename: b.metadata?.filename ?? b.filename ?? b.name },
      )
    case 'image_url': {
      const u = typeof b.image_url === 'string' ? b.image_url : b.image_url?.url
      return typeof u === 'string' ? media('image', null, null, u) : null
    }
    case 'input_image':
      return media('image', null, null, b.image_url, { fileId: b.file_id })
    case 'input_file': {
      const raw = str(b.file_data)
      const isUrl = raw !== null && parseDataUrl(raw) !== null
      return media('file', null, isUrl ? null : raw, isUrl ? raw : (b.file_url ?? null), { fileId: b.file_id, filename: b.filename })
    }
    default:
      return null
  }
}

/**
 * A message's content as neutral blocks: null for a plain string (not made of
 * blocks) or a list without any image or file; otherwise every block, those it
 * cannot read kept as their JSON text.
 */
function readBlocks(content) {
  if (!Array.isArray(content)) return null
  const out = readAll(content)
  return out.some((b) => b.type !== 'text') ? out : null
}

/** Every block of a list in the neutral form, those it cannot read as their JSON text. */
function readAll(content) {
  return content.map((b) => readBlock(b) ?? { type: 'text', text: jsonText(b) })
}

function jsonText(b) {
  try {
    return JSON.stringify(b) ?? String(b)
  } catch {
    // A BigInt inside, a cycle, an object with no prototype.
    return typeof b === 'object' && b !== null ? Object.prototype.toString.call(b) : String(b)
  }
}

/** The block's bytes: a Buffer for canonical base64 data, else null (a URL, a file id, or data that is not base64). */
function bytesOf(block) {
  return canonicalBytes(block.data)
}

module.exports = { readBlock, readBlocks, readAll, isBase64, canonicalBytes, parseDataUrl, bytesOf }
