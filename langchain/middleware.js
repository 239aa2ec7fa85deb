'use strict'
// `toolMemoryMiddleware`: tool-result memory for `createAgent`. Each model
// call sees the history compacted by the policy of the wrapped model's cache
// style; the recall tool is bound on every call, so the cached tool block
// never changes mid-conversation.

const { RECALL_TOOL_NAME, cachedCacheModelFor } = require('../core/index.js')
const { setup } = require('./setup.js')
const { offloaded, withFreshBlocks } = require('./offload.js')
const { compact } = require('./compact.js')
const { blockFormFor, withBlockForm } = require('./block-form.js')
const { refuseAsHook } = require('./misuse.js')
const { toolChars, systemChars, systemText } = require('./request-size.js')
const { usageTracker } = require('./usage.js')
const { threadRequests } = require('./request-text.js')
const { msgType } = require('./messages.js')

const { CACHES_LIMIT } = require('../lib/usage-events.js')

const isAIMessage = (m) => m !== null && typeof m === 'object' && msgType(m) === 'ai' && (m.response_metadata == null || typeof m.response_metadata === 'object')

/**
 * createAgent middleware: compaction in wrapModelCall, and the recall tool,
 * bound on every request (its definition is priced in the policy's budget).
 */
function toolMemoryMiddleware(options) {
  const { createMiddleware } = require('langchain')
  const { o, ledger, nsOf, policies, recallTool, report } = setup(options, 'toolMemoryMiddleware(options)')
  // Evicting is decided by size alone, the same under both cache models' policies.
  const toolPolicy = policies[o.cacheModel ?? 'prefix']
  const count = toolPolicy.countTokens
  const recallChars = toolChars(recallTool, count)
  const usage = usageTracker(report)
  const texts = new Map() // namespace -> threadRequests() (request-text.js), bounded as the usage tracker's, oldest forgotten first
  const textsOf = (ns) => {
    let t = texts.get(ns)
    texts.delete(ns)
    texts.set(ns, (t ??= threadRequests()))
    if (texts.size > CACHES_LIMIT) texts.delete(texts.keys().next().value)
    return t
  }
  // A system prompt given as a string, as one message object per string (so that the thread's requests resume).
  let lastSystem = { prompt: undefined, message: null }
  const systemOf = (prompt) => {
    if (typeof prompt !== 'string') return null
    if (lastSystem.prompt !== prompt) lastSystem = { prompt, message: { type: 'system', content: prompt } }
    return lastSystem.message
  }
  const isRecall = (t) => t === recallTool || (t && t.name === RECALL_TOOL_NAME)
  const middleware = createMiddleware({
    name: 'ToolMemoryMiddleware',
    tools: [recallTool],
    wrapModelCall: async (request, handler) => {
      const policy = policies[o.cacheModel ?? cachedCacheModelFor(request.model)]
      const tools = Array.isArray(request.tools) ? request.tools : []
      let others = 0
      let recall = 0
      for (const t of tools) {
        if (t !== recallTool && t && t.name === RECALL_TOOL_NAME) throw duplicateRecallTool()
        if (isRecall(t)) recall = recallChars
        else others += toolChars(t, count)
      }
      const env = { toolChars: others, systemChars: systemChars(request, count), recallToolChars: recall }
      const ns = nsOf(request.runtime)
      const fresh = o.offload === true ? await withFreshBlocks(request.messages, ledger, ns) : request.messages
      const { messages, call } = await compact(fresh, ledger, policy, ns, env)
      const sent = withBlockForm(messages, blockFormFor(request.model))
      const response = await handler({ ...request, messages: sent })
      // The usage event and the cache check: never a reason to fail the call.
      try {
        // The request as the model receives it (createAgent prepends the system message), and without compaction.
        const system = request.systemMessage ?? systemOf(request.systemPrompt)
        const t = textsOf(ns)
        const requests = { ours: t.ours(tools, system, sent), none: t.none(tools, system, request.messages) }
        const estimate = usage.after({ runtime: request.runtime, ns, policy, call, sent: messages, response, system: systemText(request), requests })
        // Kept beside the answer, so usageTotals adds the events up from the state, after a restart too.
        if (estimate !== undefined && isAIMessage(response)) response.response_metadata = { ...response.response_metadata, tool_memory_usage: { none: { ...estimate.none }, ours: { ...estimate.ours } } }
      } catch (err) {
        report.warn(`usage\0${err && err.message}`, `@symfonic/core: the usage report failed (${err && err.message}); the call went through`)
      }
      return response
    },
    wrapToolCall:
      o.offload === true
        ? async (request, handler) => offloaded(await handler(request), request, ledger, toolPolicy, nsOf(request.runtime), report)
        : undefined,
  })
  return refuseAsHook(middleware)
}

// A second recall_tool_result (the app's own) would shadow the middleware's,
// which serves this middleware's ledger, namespace and cap.
function duplicateRecallTool() {
  return new TypeError(
    `toolMemoryMiddleware(options) binds ${RECALL_TOOL_NAME} itself: remove createRecallToolResultTool(...) from createAgent's tools (pass recallMaxChars to the middleware for another cap)`,
  )
}

module.exports = { toolMemoryMiddleware }
