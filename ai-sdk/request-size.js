'use strict'
// The size of what precedes a step's messages, as the core's RequestEnv
// (core/conversation.js) wants it. A prepareStep sees neither the tool
// definitions nor (ai 6) the system prompt: the recall tool's definition is
// ours to measure, the app's tools are measured when the app passes them to
// toolMemory({ tools }) (else they count 0), and the instructions count when
// the SDK passes them (ai 7).

const { z } = require('zod/v4')
const { sizeOf } = require('../core/index.js')

// A tool's input schema as the SDK sends it: a zod 4 schema as the SDK
// converts it (draft-07), or what ai's jsonSchema() made (its `jsonSchema`
// field); anything else is unknown.
function parametersOf(schema) {
  if (schema !== null && typeof schema === 'object' && schema._zod !== undefined) return z.toJSONSchema(schema, { target: 'draft-7', io: 'output' })
  const js = schema && schema.jsonSchema
  return js !== null && typeof js === 'object' && typeof js.then !== 'function' ? js : {}
}

/** Characters (or countTokens units, `count`) of a tool's definition as a provider receives it (name, description, JSON schema). */
function toolChars(name, t, count) {
  try {
    return sizeOf(JSON.stringify({ type: 'function', function: { name, description: t.description, parameters: parametersOf(t.inputSchema) } }), count)
  } catch {
    return 0 // a definition that cannot be serialised: its size is unknown, not an error
  }
}

/** Characters (or countTokens units) of a tool set's definitions (`{ name: tool }`), the recall tool left out. */
function toolSetChars(tools, skip, count) {
  let n = 0
  for (const [name, t] of Object.entries(tools)) if (name !== skip && t !== null && typeof t === 'object') n += toolChars(name, t, count)
  return n
}

const textOf = (c) => (typeof c === 'string' ? c : c && typeof c.content === 'string' ? c.content : '')

/** Characters (or countTokens units) of a step's instructions (ai 7: a string, a system message, or a list of them). */
function instructionsChars(step, count) {
  const i = step.instructions ?? step.system
  if (Array.isArray(i)) return i.reduce((a, c) => a + sizeOf(textOf(c), count), 0)
  return sizeOf(textOf(i), count)
}

module.exports = { toolChars, toolSetChars, instructionsChars }
