'use strict'
// `toolMemoryMiddleware`: tool-result memory for `createAgent`. The recall
// tool is in every tool list from the first call, and each model call sees
// the history compacted by the policy of the wrapped model's cache style.

const { Ledger } = require('../index.js')
const { resolveOptions, namespaceResolver } = require('./options.js')
const { cachedCacheModelFor } = require('./cache-model.js')
const { compact } = require('./compact.js')
const { createRecallToolResultTool } = require('./recall-tool.js')

/**
 * What the middleware and the hook share: the ledger, the namespace, the
 * recall tool, and both cache models' policies, resolved (and validated) up
 * front; the model picks one per call. `fn` names the caller in TypeErrors.
 */
function setup(options, fn) {
  const o = options == null ? {} : options
  if (typeof o !== 'object' || Array.isArray(o)) throw new TypeError(`${fn}: options must be an object`)
  if (o.ledger != null && (typeof o.ledger.record !== 'function' || typeof o.ledger.fetch !== 'function')) {
    throw new TypeError(`${fn}: ledger must be a Ledger (an object with record() and fetch())`)
  }
  if (o.namespace != null && typeof o.namespace !== 'string' && typeof o.namespace !== 'function') {
    throw new TypeError(`${fn}: namespace must be a string or a function of the run config`)
  }
  const compactOptions = { ...o }
  delete compactOptions.ledger
  delete compactOptions.namespace
  if (o.cacheModel != null) resolveOptions({ cacheModel: o.cacheModel }, fn)
  const ledger = o.ledger ?? new Ledger()
  const nsOf = namespaceResolver(o.namespace)
  const policies = {
    breakpoint: resolveOptions({ ...compactOptions, cacheModel: 'breakpoint' }, fn),
    prefix: resolveOptions({ ...compactOptions, cacheModel: 'prefix' }, fn),
  }
  const recallTool = createRecallToolResultTool(ledger, { namespace: nsOf })
  return { o, ledger, nsOf, policies, recallTool }
}

/** createAgent middleware: the recall tool in every tool list, compaction in wrapModelCall. */
function toolMemoryMiddleware(options) {
  const { createMiddleware } = require('langchain')
  const { o, ledger, nsOf, policies, recallTool } = setup(options, 'toolMemoryMiddleware')
  return createMiddleware({
    name: 'ToolMemoryMiddleware',
    tools: [recallTool],
    wrapModelCall: async (request, handler) => {
      const policy = policies[o.cacheModel ?? cachedCacheModelFor(request.model)]
      const messages = await compact(request.messages, ledger, policy, nsOf(request.runtime))
      return handler({ ...request, messages })
    },
  })
}

module.exports = { toolMemoryMiddleware, setup }
