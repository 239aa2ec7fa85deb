'use strict'
// A recalled block given back in a form the model's provider accepts, byte
// for byte (docs/recall.md, "Images and documents"). Framework-free: plain
// content blocks, which a LangChain ToolMessage, or any adapter, carries.
//
//   'standard'          LangChain's standard blocks in the tool result
//                       ({ type: 'image' | 'file', data, mimeType }): what
//                       @langchain/anthropic turns into image and document
//                       blocks inside `tool_result`, and what a model profile
//                       with `imageToolMessage` takes.
//   'anthropic'         Anthropic's own blocks in the tool result.
//   'openai-responses'  `input_text` / `input_image` / `input_file` only: the
//                       Responses API passes them in `function_call_output`
//                       only when every block is an `input_*` block.
//   'openai-chat'       Chat Completions tool messages are text only: the tool
//                       result says what the blocks are, and the blocks follow
//                       in a user message right after the tool results.

const FORMS = ['standard', 'anthropic', 'openai-responses', 'openai-chat']

/** The line that stands before a recalled block, saying what it is. */
function headline(b) {
  return `[recall: ${b.memId}, ${b.type} ${b.facts.line}, as recorded]`
}

/** A standard (LangChain) block of a data URL's parts. */
function asDataUrl(b) {
  return `data:${b.mimeType};base64,${b.data}`
}

/**
 * A tool result's content made of standard blocks (text, and `{ type:
 * 'image' | 'file', data, mimeType }`) in `form`: `tool`, the tool result's
 * content, and `followUp`, the content of a user message to put right after
 * the tool results (null unless the provider takes no image in a tool result).
 */
function reshape(content, form) {
  const text = (t) => (form === 'openai-responses' ? { type: 'input_text', text: t } : { type: 'text', text: t })
  const media = (b) => b !== null && typeof b === 'object' && (b.type === 'image' || b.type === 'file') && typeof b.data === 'string' && typeof b.mimeType === 'string'
  const pdf = (b) => b.mimeType === 'application/pdf'
  if (form === 'standard') return { tool: content, followUp: null }
  const tool = []
  const follow = []
  for (const b of content) {
    if (!media(b)) {
      const t = typeof b === 'string' ? b : b && typeof b.text === 'string' ? b.text : null
      if (t !== null) tool.push(text(t))
      continue
    }
    const name = b.metadata?.filename ?? 'document.pdf'
    if (form === 'anthropic') {
      tool.push(pdf(b) ? { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: b.data } } : { type: 'image', source: { type: 'base64', media_type: b.mimeType, data: b.data } })
    } else if (form === 'openai-responses') {
      tool.push(pdf(b) ? { type: 'input_file', filename: name, file_data: asDataUrl(b) } : { type: 'input_image', image_url: asDataUrl(b), detail: 'auto' })
    } else {
      if (tool.length > 0) follow.push(text(tool.at(-1).text))
      follow.push(pdf(b) ? { type: 'file', file: { filename: name, file_data: asDataUrl(b) } } : { type: 'image_url', image_url: { url: asDataUrl(b) } })
    }
  }
  if (form === 'openai-chat') {
    const said = tool.map((t) => t.text).join('\n')
    return { tool: follow.length > 0 ? `${said}\n[the blocks follow in the next user message]` : said, followUp: follow.length > 0 ? follow : null }
  }
  return { tool, followUp: null }
}

/**
 * The answer to a recall of `blocks` (as `Ledger.fetchBlock` gives them) in
 * `form` (see `reshape`); a block whose bytes are no known format is
 * described, never sent.
 */
function blocksAnswer(blocks, form = 'standard') {
  if (!FORMS.includes(form)) throw new TypeError(`blocksAnswer(blocks, form): form must be one of ${FORMS.map((f) => `'${f}'`).join(', ')}; got ${String(form)}`)
  const content = []
  for (const b of blocks) {
    content.push({ type: 'text', text: headline(b) })
    const format = b.data === null ? undefined : b.facts.format
    if (format === undefined || format === null) continue
    const block = { type: format === 'pdf' ? 'file' : 'image', data: b.base64, mimeType: b.mimeType }
    if (format === 'pdf') block.metadata = { filename: b.filename ?? `${b.memId}.pdf` }
    content.push(block)
  }
  return reshape(content, form)
}

module.exports = { blocksAnswer, reshape, FORMS }
