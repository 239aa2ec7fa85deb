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

function dataUrl(b) {
  return `data:${b.mimeType ?? 'application/octet-stream'};base64,${b.base64}`
}

/** The line that stands before a recalled block, saying what it is. */
function headline(b) {
  return `[recall: ${b.memId}, ${b.type} ${b.facts.line}, as recorded]`
}

// The block itself in `form`, or null when its bytes are no format a
// provider reads (a URL, a file id, data that is not base64 or opaque: a
// provider would refuse the request; the headline says what it is).
function shown(b, form) {
  const format = b.data === null ? undefined : b.facts.format
  if (format === undefined || format === null) return null
  const pdf = format === 'pdf'
  switch (form) {
    case 'anthropic':
      return pdf
        ? { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: b.base64 } }
        : { type: 'image', source: { type: 'base64', media_type: b.mimeType, data: b.base64 } }
    case 'openai-responses':
      return pdf ? { type: 'input_file', filename: b.filename ?? `${b.memId}.pdf`, file_data: dataUrl(b) } : { type: 'input_image', image_url: dataUrl(b), detail: 'auto' }
    case 'openai-chat':
      return pdf ? { type: 'file', file: { filename: b.filename ?? `${b.memId}.pdf`, file_data: dataUrl(b) } } : { type: 'image_url', image_url: { url: dataUrl(b) } }
    default:
      return { type: pdf ? 'file' : 'image', data: b.base64, mimeType: b.mimeType }
  }
}

/**
 * The answer to a recall of `blocks` (as `Ledger.fetchBlock` gives them) in
 * `form`: `tool`, the tool result's content, and `followUp`, the content of a
 * user message to put right after the tool results (null unless the provider
 * takes no image in a tool result).
 */
function blocksAnswer(blocks, form = 'standard') {
  if (!FORMS.includes(form)) throw new TypeError(`blocksAnswer(blocks, form): form must be one of ${FORMS.map((f) => `'${f}'`).join(', ')}; got ${String(form)}`)
  const text = (t) => (form === 'openai-responses' ? { type: 'input_text', text: t } : { type: 'text', text: t })
  const tool = []
  const follow = []
  for (const b of blocks) {
    const block = shown(b, form)
    if (form === 'openai-chat') {
      tool.push(text(`${headline(b)}${block ? ' It follows in the next user message.' : ''}`))
      if (block) follow.push(text(headline(b)), block)
    } else {
      tool.push(text(headline(b)))
      if (block) tool.push(block)
    }
  }
  if (form === 'openai-chat') return { tool: tool.map((t) => t.text).join('\n'), followUp: follow.length > 0 ? follow : null }
  return { tool, followUp: null }
}

module.exports = { blocksAnswer, FORMS }
