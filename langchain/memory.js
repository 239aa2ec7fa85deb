'use strict'
// Tool-result memory for LangChain.js agents, one concept per module:
//   messages.js     what compaction reads from LangChain messages
//   options.js      options, defaults per cache model, validation
//   cache-model.js  the provider's cache style and its price multipliers
//   policy.js       the eligibility rule, the rewrite cost model, cache marks
//   compact.js      the rewriting of messages (stubs, recall notes, marks)
//   recall-tool.js  the recall_tool_result tool and its refill from state
//   middleware.js   createAgent middleware
//   hook.js         createReactAgent preModelHook
// This module gathers them for `@symfonic/core/langchain`.

const { DEFAULTS, RECALL_TOOL_NAME } = require('./options.js')
const { PRICING, cacheModelFor } = require('./cache-model.js')
const { compactToolMessages } = require('./compact.js')
const { createRecallToolResultTool } = require('./recall-tool.js')
const { toolMemoryMiddleware } = require('./middleware.js')
const { toolMemoryPreModelHook } = require('./hook.js')

module.exports = {
  DEFAULTS,
  PRICING,
  RECALL_TOOL_NAME,
  cacheModelFor,
  createRecallToolResultTool,
  compactToolMessages,
  toolMemoryMiddleware,
  toolMemoryPreModelHook,
}
