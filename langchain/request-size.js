'use strict'
// The size of what precedes the messages in a request: the tool definitions
// and the system prompt, as the core's RequestEnv (core/conversation.js)
// wants them; per tool object, measured once. With the user's `countTokens`,
// sizes are its tokens × 4 (core/usage.js `sizeOf`).

const { sizeOf } = require('../core/index.js')

const jsons = new WeakMap()
const counted = new WeakMap() // countTokens -> WeakMap<tool, size>

/** A tool's definition as a provider receives it (its JSON schema), or '' when it cannot be serialised. */
function toolJson(t) {
  let s = jsons.get(t)
  if (s === undefined) {
    try {
      const { convertToOpenAITool } = require('@langchain/core/utils/function_calling')
      s = JSON.stringify(t.schema !== undefined ? convertToOpenAITool(t) : t)
    } catch {
      s = '' // a definition that cannot be serialised: its size is unknown, not an error
    }
    if (typeof s !== 'string') s = ''
    jsons.set(t, s)
  }
  return s
}

/** Characters (or countTokens units) of a tool's definition. */
function toolChars(t, count) {
  if (t === null || typeof t !== 'object') return 0
  if (count === undefined) return toolJson(t).length
  let sizes = counted.get(count)
  if (sizes === undefined) counted.set(count, (sizes = new WeakMap()))
  let s = sizes.get(t)
  if (s === undefined) sizes.set(t, (s = sizeOf(toolJson(t), count)))
  return s
}

/** The text of a model request's system prompt. */
function systemText(request) {
  const sm = request && request.systemMessage
  const c = sm && sm.content
  if (typeof c === 'string') return c
  if (Array.isArray(c)) return c.map((b) => (typeof b === 'string' ? b : b && typeof b.text === 'string' ? b.text : '')).join('')
  return request && typeof request.systemPrompt === 'string' ? request.systemPrompt : ''
}

// The last system prompt counted, per counter: the prompt rarely changes between calls.
const lastSystem = new WeakMap()

/** Characters (or countTokens units) of a model request's system prompt. */
function systemChars(request, count) {
  const text = systemText(request)
  if (count === undefined) return text.length
  const last = lastSystem.get(count)
  if (last !== undefined && last.text === text) return last.size
  const size = sizeOf(text, count)
  lastSystem.set(count, { text, size })
  return size
}

module.exports = { toolChars, systemChars, systemText }
