'use strict'
// `toolMemoryPreModelHook`: tool-result memory for `createReactAgent`. The
// hook answers `{ llmInputMessages }`, so the state keeps the originals; the
// recall tool, bound to the same ledger, is `hook.tool`.

const { compact } = require('./compact.js')
const { setup } = require('./setup.js')
const { offloadingTools } = require('./offload.js')
const { refuseAsMiddleware, watchRegistration } = require('./misuse.js')

/**
 * createReactAgent preModelHook: answers `{ llmInputMessages }`. Add `hook.tool`
 * (the recall tool bound to the same ledger) to the agent's tools.
 */
function toolMemoryPreModelHook(options) {
  const { o, ledger, nsOf, policies, recallTool, report } = setup(options, 'toolMemoryPreModelHook(options)')
  const policy = policies[o.cacheModel ?? 'prefix']
  const registered = watchRegistration(recallTool, () => {})
  const hook = async (state, config) => {
    const messages = Array.isArray(state) ? state : state.messages
    const out = (await compact(messages, ledger, policy, nsOf(config))).messages
    // Stubs tell the model to call recall_tool_result: say so if it cannot.
    if (!registered() && out.some((m, i) => m !== messages[i] && m.response_metadata?.tool_memory?.compacted === true)) {
      report.warn(
        'hookToolMissing',
        'toolMemoryPreModelHook(options): the model is shown stubs, but hook.tool (recall_tool_result) is not among the agent\'s tools, so it cannot read them back; ' +
          'add it: createReactAgent({ llm, tools: [...tools, hook.tool], preModelHook: hook })',
      )
    }
    return { llmInputMessages: out }
  }
  Object.defineProperty(hook, 'tool', { value: recallTool, enumerable: true })
  Object.defineProperty(hook, 'ledger', { value: ledger, enumerable: true })
  // The hook runs after the state has a result, so offload happens in the tools:
  // `tools: [...hook.offloadTools(tools), hook.tool]`.
  const offloadTools = (tools) => {
    if (o.offload !== true) throw new TypeError('hook.offloadTools(tools): needs the hook made with toolMemoryPreModelHook({ offload: true }) (and a ledger with a store)')
    return offloadingTools(tools, ledger, policy, nsOf, report, 'hook.offloadTools(tools)')
  }
  Object.defineProperty(hook, 'offloadTools', { value: offloadTools, enumerable: true })
  return refuseAsMiddleware(hook)
}

module.exports = { toolMemoryPreModelHook }
