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
// and recallToolOnly (no compaction, the recall tool bound), for its fixed cost.

const { createMiddleware, contextEditingMiddleware } = require('langchain')

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
// keep last 1, > 8000 chars, nothing evicted, every call (compactAfter
// 'arrival', no cost model), recall answers compacted like any result, no
// cache marks (the 'prefix' policy), and the recall tool hidden until
// compaction starts.
const PYTHON_OPTIONS = { keepLastN: 1, sizeChars: 8000, evictChars: Infinity, compactAfter: 'arrival', windowCalls: Infinity, quotedCalls: 0, recallAnswers: 'stub', horizonCalls: Infinity, maxExtraCost: Infinity, cacheModel: 'prefix' }
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

// `events`: the middleware's usage events of the last build (docs/usage.md).
function ours(cacheModel, options = {}, label) {
  const s = {
    name: label || `ours:${cacheModel}`,
    label: label || `toolMemoryMiddleware (cacheModel ${cacheModel})`,
    cacheModel,
    options,
    events: [],
    build: ({ appTools }) => {
      s.events = []
      const onEvent = (e) => e.type === 'usage' && s.events.push(e)
      return { tools: appTools, middleware: [memory.toolMemoryMiddleware({ cacheModel, onEvent, ...options })] }
    },
  }
  return s
}

// No compaction, with the recall tool bound on every request: what the recall
// tool's definition costs on its own (the middleware binds it from the first call).
const recallToolOnly = {
  name: 'recallToolOnly',
  label: 'no compaction, recall_tool_result bound',
  build: ({ appTools }) => ({ tools: [...appTools, memory.createRecallToolResultTool(new memory.Ledger())], middleware: [] }),
}

/** Characters of the recall tool's definition as a provider receives it. */
const recallToolChars = () => require('../../langchain/request-size.js').toolChars(memory.createRecallToolResultTool(new memory.Ledger()))

module.exports = { recallToolChars, none, contextEditing, python, ours, recallToolOnly, memory, PYTHON_OPTIONS }
