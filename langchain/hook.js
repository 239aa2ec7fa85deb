'use strict'
// `toolMemoryPreModelHook`: tool-result memory for `createReactAgent`. The
// hook answers `{ llmInputMessages }`, so the state keeps the originals; the
// recall tool, bound to the same ledger, is `hook.tool`.

const { compact } = require('./compact.js')
const { setup } = require('./middleware.js')
const { offloadingTools } = require('./offload.js')

/**
 * createReactAgent preModelHook: answers `{ llmInputMessages }`. Add `hook.tool`
 * (the recall tool bound to the same ledger) to the agent's tools.
 */
function toolMemoryPreModelHook(options) {
  const { o, ledger, nsOf, policies, recallTool, report } = setup(options, 'toolMemoryPreModelHook')
  const policy = policies[o.cacheModel ?? 'prefix']
  const hook = async (state, config) => {
    const messages = Array.isArray(state) ? state : state.messages
    return { llmInputMessages: (await compact(messages, ledger, policy, nsOf(config))).messages }
  }
  Object.defineProperty(hook, 'tool', { value: recallTool, enumerable: true })
  Object.defineProperty(hook, 'ledger', { value: ledger, enumerable: true })
  // The hook runs after the state has a result, so offload happens in the tools:
  // `tools: [...hook.offloadTools(tools), hook.tool]`.
  const offloadTools = (tools) => {
    if (o.offload !== true) throw new TypeError('toolMemoryPreModelHook: offloadTools needs the hook made with { offload: true } (and a ledger with a store)')
    return offloadingTools(tools, ledger, policy, nsOf, report, 'toolMemoryPreModelHook')
  }
  Object.defineProperty(hook, 'offloadTools', { value: offloadTools, enumerable: true })
  return hook
}

module.exports = { toolMemoryPreModelHook }
