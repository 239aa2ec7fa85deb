'use strict'
// Helpers for the demo that are not part of the API being shown: a scripted
// chat model (so the demo runs offline, with no API key) and a generator for
// a large, deterministic product catalog.

const { BaseChatModel } = require('@langchain/core/language_models/chat_models')
const { AIMessage } = require('@langchain/core/messages')

/**
 * A chat model that replies from a script: `script[i](prompt)` builds the
 * i-th reply from the messages the model actually received, the way a real
 * model would read its prompt. It records every prompt in `calls`.
 *
 * (LangChain's own FakeToolCallingModel echoes every message into its reply,
 * which would make the prompt sizes below meaningless.)
 */
class ScriptedChatModel extends BaseChatModel {
  constructor(script, shared = { calls: [] }) {
    super({})
    this.script = script
    this.shared = shared
  }
  get calls() {
    return this.shared.calls
  }
  _llmType() {
    return 'scripted'
  }
  // createAgent binds the agent's tools (and the middleware's) on every call.
  bindTools(tools) {
    const bound = new ScriptedChatModel(this.script, this.shared)
    bound.tools = tools
    return bound
  }
  async _generate(messages) {
    const i = this.shared.calls.length
    if (i >= this.script.length) throw new Error(`the script has no reply for model call ${i + 1}`)
    const message = this.script[i](messages)
    this.shared.calls.push({ messages, tools: (this.tools || []).map((t) => t.name), reply: message })
    return { generations: [{ text: typeof message.content === 'string' ? message.content : '', message }] }
  }
}

let seq = 0
/** An assistant message that calls one tool. */
const toolCall = (name, args) => new AIMessage({ content: '', tool_calls: [{ id: `call_${++seq}`, name, args, type: 'tool_call' }] })
/** An assistant message with a final answer. */
const answer = (text) => new AIMessage(text)

/** A deterministic catalog of `count` products (~1,400 chars each) as JSON text. */
function makeCatalog(season, count) {
  let s = 42
  const rnd = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648)
  const words = 'oak linen brass garden kitchen pallet lamp stool basket copper wool shelf planter towel jar rug'.split(' ')
  const w = (n) => Array.from({ length: n }, () => words[Math.floor(rnd() * words.length)]).join(' ')
  const categories = ['garden', 'kitchen', 'lighting', 'storage', 'textiles']
  const items = Array.from({ length: count }, (_, i) => ({
    sku: `SKU-${String(i).padStart(5, '0')}`,
    title: w(3),
    category: categories[i % categories.length],
    price: Math.round(rnd() * 20000) / 100,
    stock: Math.floor(rnd() * 500),
    tags: [w(1), w(1)],
    description: w(200),
  }))
  return JSON.stringify({ meta: { season, currency: 'EUR', count }, items })
}

/** The text of a message's content (string or content blocks). */
const textOf = (m) => (typeof m.content === 'string' ? m.content : m.content.map((b) => b.text || '').join(''))

/** Characters a list of messages puts in the prompt: text plus tool-call arguments. */
const promptChars = (messages) =>
  messages.reduce((n, m) => n + textOf(m).length + (m.tool_calls && m.tool_calls.length ? JSON.stringify(m.tool_calls).length : 0), 0)

module.exports = { ScriptedChatModel, toolCall, answer, makeCatalog, textOf, promptChars }
