'use strict'
// `toolMemoryPreModelHook`: tool-result memory for `createReactAgent`. The
// hook answers `{ llmInputMessages }`, so the state keeps the originals; the
// recall tool, bound to the same ledger, is `hook.tool`.

const { compact } = require('./compact.js')
const { setup } = require('./middleware.js')

/**
 * createReactAgent preModelHook: answers `{ llmInputMessages }`. Add `hook.tool`
 * (the recall tool bound to the same ledger) to the agent's tools.
 */
function toolMemoryPreModelHook(options) {
  if (options != null && typeof options === 'object' && options.offload !== undefined) {
    // Offload rewrites a tool's result before it reaches the state; a preModelHook runs too late for that.
    throw new TypeError("toolMemoryPreModelHook: offload is not available for createReactAgent (its hook runs after the state has the result); use createAgent with toolMemoryMiddleware({ offload: true })")
  }
  const { o, ledger, nsOf, policies, recallTool } = setup(options, 'toolMemoryPreModelHook')
  const policy = policies[o.cacheModel ?? 'prefix']
  const hook = async (state, config) => {
    const messages = Array.isArray(state) ? state : state.messages
    return { llmInputMessages: await compact(messages, ledger, policy, nsOf(config)) }
  }
  Object.defineProperty(hook, 'tool', { value: recallTool, enumerable: true })
  Object.defineProperty(hook, 'ledger', { value: ledger, enumerable: true })
  return hook
}

module.exports = { toolMemoryPreModelHook }
