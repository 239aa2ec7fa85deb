'use strict'
// The size of what precedes a step's messages, as the core's RequestEnv
// (core/conversation.js) wants it. A prepareStep sees neither the tool
// definitions nor (ai 6) the system prompt: the recall tool's definition is
// ours to measure, the app's tools count 0, and the instructions count when
// the SDK passes them (ai 7).

const { z } = require('zod/v4')

/** Characters of a tool's definition as a provider receives it (name, description, JSON schema). */
function toolChars(name, t) {
  try {
    const parameters = z.toJSONSchema(t.inputSchema, { io: 'input' })
    delete parameters.$schema
    return JSON.stringify({ type: 'function', function: { name, description: t.description, parameters } }).length
  } catch {
    return 0 // a definition that cannot be serialised: its size is unknown, not an error
  }
}

const textOf = (c) => (typeof c === 'string' ? c : c && typeof c.content === 'string' ? c.content : '')

/** Characters of a step's instructions (ai 7: a string, a system message, or a list of them). */
function instructionsChars(step) {
  const i = step.instructions ?? step.system
  if (Array.isArray(i)) return i.reduce((a, c) => a + textOf(c).length, 0)
  return textOf(i).length
}

module.exports = { toolChars, instructionsChars }
