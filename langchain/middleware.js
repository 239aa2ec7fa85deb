'use strict'
// `toolMemoryMiddleware`: tool-result memory for `createAgent`. Each model
// call sees the history compacted by the policy of the wrapped model's cache
// style; the recall tool is bound on every call, so the cached tool block
// never changes mid-conversation.

const { Ledger, MAX_OUTPUT_CHARS } = require('../index.js')
const { resolveOptions, namespaceResolver, TOOL_MEMORY_KEYS } = require('./options.js')
const { optionsObject, checkLedger, checkBoolean, checkNamespace } = require('../lib/options.js')
const { storeOf } = require('../lib/ledger.js')
const { offloaded } = require('./offload.js')
const { reporter } = require('./report.js')
const { cachedCacheModelFor } = require('./cache-model.js')
const { compact } = require('./compact.js')
const { recallTool: makeRecallTool, checkCap } = require('./recall-tool.js')
const { refuseAsHook, threadNamespace } = require('./misuse.js')
const { toolChars, systemChars } = require('./request-size.js')
const { RECALL_TOOL_NAME } = require('./options.js')

/**
 * What the middleware and the hook share: the ledger, the namespace, the
 * recall tool, and both cache models' policies, resolved (and validated) up
 * front; the model picks one per call. `fn` names the caller in TypeErrors.
 */
function setup(options, fn) {
  const o = optionsObject(fn, options, TOOL_MEMORY_KEYS)
  // Every method compaction and the recall tool will call.
  if (o.ledger != null) checkLedger(fn, o.ledger, ['record', 'fetch', 'handle', 'stub'])
  checkNamespace(fn, o.namespace)
  if (o.offload !== undefined) checkBoolean(fn, 'offload', o.offload)
  if (o.recallMaxChars != null) checkCap(fn, 'recallMaxChars', o.recallMaxChars)
  // Offload takes payloads out of the state: only a ledger with a store may hold them then.
  if (o.offload === true && storeOf(o.ledger) === null) {
    throw new TypeError(`${fn}: offload needs a ledger with a store (ledger: new Ledger({ store: 'sqlite:./ledger.db' })); in memory only, a restart would lose the offloaded results`)
  }
  const compactOptions = { ...o }
  delete compactOptions.ledger
  delete compactOptions.namespace
  delete compactOptions.offload
  delete compactOptions.recallMaxChars
  if (o.cacheModel != null) resolveOptions({ cacheModel: o.cacheModel }, fn)
  const policies = {
    breakpoint: resolveOptions({ ...compactOptions, cacheModel: 'breakpoint' }, fn),
    prefix: resolveOptions({ ...compactOptions, cacheModel: 'prefix' }, fn),
  }
  const ledger = o.ledger ?? new Ledger()
  const report = reporter(policies.prefix.logger, policies.prefix.onEvent)
  // The default namespace is the run's thread id; a run without one is warned once.
  const nsOf = o.namespace == null ? threadNamespace(namespaceResolver(undefined), fn, report) : namespaceResolver(o.namespace)
  const recallTool = makeRecallTool(ledger, nsOf, o.recallMaxChars ?? MAX_OUTPUT_CHARS, report)
  return { o, ledger, nsOf, policies, recallTool, report }
}

/**
 * createAgent middleware: compaction in wrapModelCall, and the recall tool,
 * bound on every request (its definition is priced in the policy's budget).
 */
function toolMemoryMiddleware(options) {
  const { createMiddleware } = require('langchain')
  const { o, ledger, nsOf, policies, recallTool, report } = setup(options, 'toolMemoryMiddleware(options)')
  // Evicting is decided by size alone, the same under both cache models' policies.
  const toolPolicy = policies[o.cacheModel ?? 'prefix']
  const recallChars = toolChars(recallTool)
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
        else others += toolChars(t)
      }
      const env = { toolChars: others, systemChars: systemChars(request), recallToolChars: recall }
      const { messages } = await compact(request.messages, ledger, policy, nsOf(request.runtime), env)
      return handler({ ...request, messages })
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

module.exports = { toolMemoryMiddleware, setup }
