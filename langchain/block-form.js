'use strict'
// Recalled images and documents in the form the model's provider accepts
// (lib/block-answer.js `reshape`): the recall tool answers LangChain standard
// blocks, which go as they are where a tool result may carry them (Anthropic,
// a model profile with `imageToolMessage`); for the OpenAI Responses API they
// become `input_*` blocks; for Chat Completions, whose tool messages are text
// only, the tool message says what follows and the blocks go in a user
// message right after the tool results. Only the request changes: the state
// keeps the recall's answer as it was.

const { HumanMessage, ToolMessage } = require('@langchain/core/messages')
const { reshape } = require('../lib/block-answer.js')
const { RECALL_TOOL_NAME, cacheModelFor } = require('../core/index.js')
const { isTool } = require('./messages.js')

/** The form the model takes blocks of a tool result in. */
function blockFormFor(model) {
  try {
    // OpenAI first: its profiles say `imageToolMessage`, which holds for the
    // Responses API with input_* blocks only, never for Chat Completions.
    const type = typeof model?._llmType === 'function' ? model._llmType() : ''
    if (type === 'openai' || type === 'azure_openai') {
      const responses = typeof model._useResponsesApi === 'function' ? model._useResponsesApi({}) : model.useResponsesApi === true
      return responses ? 'openai-responses' : 'openai-chat'
    }
    if (model?.profile?.imageToolMessage === true || cacheModelFor(model) === 'breakpoint') return 'standard'
  } catch {
    // a model whose getters throw keeps the standard form
  }
  return 'standard'
}

const hasMedia = (c) => Array.isArray(c) && c.some((b) => b && (b.type === 'image' || b.type === 'file') && typeof b.data === 'string')

/** `messages` with each recall answer made of blocks in `form`; the same list when none needs it. */
function withBlockForm(messages, form) {
  if (form === 'standard') return messages
  let out = null
  let follow = []
  const flush = (list) => {
    if (follow.length > 0) list.push(new HumanMessage({ content: follow }))
    follow = []
  }
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]
    const recalled = isTool(m) && m.name === RECALL_TOOL_NAME && hasMedia(m.content)
    if (!recalled) {
      if (out !== null && !isTool(m)) flush(out)
      if (out !== null) out.push(m)
      continue
    }
    if (out === null) out = messages.slice(0, i)
    const { tool, followUp } = reshape(m.content, form)
    out.push(new ToolMessage({ content: tool, tool_call_id: m.tool_call_id, name: m.name, id: m.id, status: m.status }))
    if (followUp !== null) follow.push(...followUp)
  }
  if (out === null) return messages
  flush(out)
  return out
}

module.exports = { blockFormFor, withBlockForm }
