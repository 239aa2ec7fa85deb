'use strict'
// The size of what precedes the messages in a request: the tool definitions
// and the system prompt, as the core's RequestEnv (core/conversation.js)
// wants them; per tool object, measured once.

const sizes = new WeakMap()

/** Characters of a tool's definition as a provider receives it (its JSON schema). */
function toolChars(t) {
  if (t === null || typeof t !== 'object') return 0
  let s = sizes.get(t)
  if (s === undefined) {
    try {
      const { convertToOpenAITool } = require('@langchain/core/utils/function_calling')
      s = JSON.stringify(t.schema !== undefined ? convertToOpenAITool(t) : t).length
    } catch {
      s = 0 // a definition that cannot be serialised: its size is unknown, not an error
    }
    sizes.set(t, s)
  }
  return s
}

/** Characters of a model request's system prompt. */
function systemChars(request) {
  const sm = request && request.systemMessage
  const c = sm && sm.content
  if (typeof c === 'string') return c.length
  if (Array.isArray(c)) return c.reduce((a, b) => a + (typeof b === 'string' ? b.length : b && typeof b.text === 'string' ? b.text.length : 0), 0)
  return request && typeof request.systemPrompt === 'string' ? request.systemPrompt.length : 0
}

module.exports = { toolChars, systemChars }
