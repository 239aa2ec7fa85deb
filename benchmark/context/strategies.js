'use strict'
// The four strategies of the benchmark, each built from real middleware:
//   none            - createAgent as is: every result stays in every prompt.
//   contextEditing  - LangChain's contextEditingMiddleware() with its defaults
//                     (ClearToolUsesEdit: at 100k tokens, clear all but the 3
//                     most recent results to "[cleared]").
//   python          - compaction as symfonic-core 9.12 shipped it: on every
//                     model call, all but the last tool result above 8000
//                     chars become stubs, and recall_tool_result joins the tool
//                     list only once something has been compacted.
//   ours            - toolMemoryMiddleware with its defaults for the cache model.

const { createMiddleware, contextEditingMiddleware } = require('langchain')
const { HumanMessage } = require('@langchain/core/messages')

// The package itself: its Ledger and its LangChain layer.
const memory = { ...require('../../langchain/memory.js'), Ledger: require('../..').Ledger }
const RECALL = 'recall_tool_result'

const none = {
  name: 'none',
  label: 'no compaction',
  build: ({ appTools }) => ({ tools: appTools, middleware: [] }),
}

const contextEditing = {
  name: 'contextEditing',
  label: 'contextEditingMiddleware (ClearToolUsesEdit defaults)',
  build: ({ appTools }) => ({ tools: appTools, middleware: [contextEditingMiddleware()] }),
}

// The Python original's rules expressed with our compactToolMessages:
// keep last 1, > 8000 chars, nothing evicted, every call (not settled only),
// no exempt tools, and the recall tool hidden until compaction starts.
const PYTHON_OPTIONS = { keepLastN: 1, sizeChars: 8000, evictChars: Infinity, settledOnly: false, exemptTools: [] }
const python = {
  name: 'python',
  label: 'per-iteration compaction (Python 9.12 as shipped)',
  build: ({ appTools, threadId }) => {
    const ledger = new memory.Ledger()
    const recallTool = memory.createRecallToolResultTool(ledger)
    const mw = createMiddleware({
      name: 'PythonOriginalCompaction',
      wrapModelCall: async (request, handler) => {
        const messages = await memory.compactToolMessages(request.messages, ledger, { ...PYTHON_OPTIONS, namespace: threadId })
        const started = messages.some((m) => m.response_metadata && m.response_metadata.tool_memory)
        const tools = started ? request.tools : request.tools.filter((t) => t.name !== RECALL)
        return handler({ ...request, messages, tools })
      },
    })
    return { tools: [...appTools, recallTool], middleware: [mw] }
  },
}

function ours(cacheModel, options = {}, label) {
  return {
    name: label || `ours:${cacheModel}`,
    label: label || `toolMemoryMiddleware (cacheModel ${cacheModel})`,
    cacheModel,
    options,
    build: ({ appTools }) => ({
      tools: appTools,
      middleware: [memory.toolMemoryMiddleware({ cacheModel, ...options })],
    }),
  }
}

// A proposal measured alongside, not the package's behaviour: the turn
// boundary moved from the last HumanMessage to the last AIMessage, i.e. a
// result may be compacted once the model has responded after reading it.
// Emulated with the real compactToolMessages by inserting a marker
// HumanMessage before the last AIMessage and removing it afterwards.
const SEEN_MARK_ID = '__bench_seen_boundary__'

async function compactSeen(messages, ledger, options) {
  let k = -1
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]._getType() === 'ai') {
      k = i
      break
    }
  }
  const marked = [...messages.slice(0, Math.max(k, 0)), new HumanMessage({ content: '', id: SEEN_MARK_ID }), ...messages.slice(Math.max(k, 0))]
  const out = await memory.compactToolMessages(marked, ledger, { ...options, settledOnly: true })
  return out.filter((m) => m.id !== SEEN_MARK_ID)
}

function oursSeen(options = {}, label = 'ours:seen') {
  return {
    name: label,
    label: 'proposal: compact once the model has responded (boundary = last AIMessage)',
    options: { ...options, settledOnly: 'seen' },
    build: ({ appTools, threadId }) => {
      const ledger = new memory.Ledger()
      const recallTool = memory.createRecallToolResultTool(ledger)
      const mw = createMiddleware({
        name: 'SeenBoundaryCompaction',
        tools: [recallTool],
        wrapModelCall: async (request, handler) =>
          handler({ ...request, messages: await compactSeen(request.messages, ledger, { cacheModel: 'prefix', ...options, namespace: threadId }) }),
      })
      return { tools: appTools, middleware: [mw] }
    },
  }
}

module.exports = { none, contextEditing, python, ours, oursSeen, memory, PYTHON_OPTIONS }
