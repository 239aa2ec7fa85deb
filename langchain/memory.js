'use strict'
// Tool-result memory for LangChain.js agents, one concept per module:
//   messages.js      what compaction reads from LangChain messages
//   conversation.js  those messages as the core's plain data (../core/: the policy)
//   compact.js       the rewriting of messages (stubs, recall notes, marks)
//   recall-tool.js   the recall_tool_result tool and its refill from state
//   namespace.js     the namespace of a run (the option, or its thread id)
//   setup.js         what the middleware and the hook share
//   middleware.js    createAgent middleware
//   hook.js          createReactAgent preModelHook
// This module gathers them for `@symfonic/core/langchain`.

const { DEFAULTS, RECALL_TOOL_NAME, PRICING, cacheModelFor } = require('../core/index.js')
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
