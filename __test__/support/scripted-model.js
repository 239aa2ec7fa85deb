'use strict'
// A scripted chat model for agent tests: each step is a function of the
// messages it receives and returns the AIMessage to answer with; every call
// (messages, bound tools, call options, the settings tools were bound with)
// is recorded. LangChain's
// FakeToolCallingModel echoes messages into its replies, which would distort
// every size these tests measure.

const { BaseChatModel } = require('@langchain/core/language_models/chat_models')

class ScriptedChatModel extends BaseChatModel {
  constructor(script, log = { calls: [] }, llmType = 'scripted') {
    super({})
    this.script = script
    this.log = log
    this.llmType = llmType
    this.boundTools = []
  }
  _llmType() {
    return this.llmType
  }
  bindTools(tools, kwargs) {
    const bound = new this.constructor(this.script, this.log, this.llmType)
    bound.boundTools = tools
    bound.bindKwargs = kwargs || {}
    return bound
  }
  async _generate(messages, options) {
    const n = this.log.calls.length
    this.log.calls.push({ messages, tools: this.boundTools, options, settings: this.bindKwargs || {} })
    const step = typeof this.script === 'function' ? this.script : this.script[n]
    if (!step) throw new Error(`scripted model: no step ${n}`)
    const message = await step(messages, n)
    return { generations: [{ text: typeof message.content === 'string' ? message.content : '', message }] }
  }
}

/** The same model under the name anthropicPromptCachingMiddleware looks for. */
class ScriptedChatAnthropic extends ScriptedChatModel {
  static lc_name() {
    return 'ChatAnthropic'
  }
  constructor(script, log, llmType = 'anthropic') {
    super(script, log, llmType)
  }
}

/** The text of a message content (a string or text blocks). */
const textOf = (c) => (typeof c === 'string' ? c : c.map((b) => (typeof b === 'string' ? b : b.text || '')).join(''))

/** How many blocks of a content carry cache_control. */
const marksIn = (c) => (Array.isArray(c) ? c.filter((b) => b && typeof b === 'object' && b.cache_control != null).length : 0)

module.exports = { ScriptedChatModel, ScriptedChatAnthropic, textOf, marksIn }
