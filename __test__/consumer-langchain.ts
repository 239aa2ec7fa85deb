// A strict TypeScript consumer of `@symfonic/core/langchain` (tool-result memory).
// Type-checked only (`npm run typecheck`); it must compile without `any` leaks.

import { Ledger } from '@symfonic/core'
import {
  compactToolMessages,
  createRecallToolResultTool,
  toolMemoryMiddleware,
  toolMemoryPreModelHook,
  DEFAULTS,
  PRICING,
  type CacheModel,
  type CachePricing,
  type CompactAfter,
  type CompactDefaults,
  type CompactOptions,
  type PerToolOptions,
  type RecallAnswers,
  type NamespaceFn,
  type RecallToolResultInput,
  type RecallToolResultTool,
  type ToolMemoryMiddleware,
  type ToolMemoryOptions,
  type ToolMemoryPreModelHook,
  usageTotals,
  type ToolMemoryEvent,
  type UsageTotals,
  type ReportedUsage,
} from '@symfonic/core/langchain'
import { createAgent, tool } from 'langchain'
import { createReactAgent } from '@langchain/langgraph/prebuilt'
import { MemorySaver } from '@langchain/langgraph'
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages'
import type { BaseChatModel } from '@langchain/core/language_models/chat_models'
import { z } from 'zod'

declare const model: BaseChatModel

const ledger = new Ledger({ maxBytes: 64 * 1024 * 1024 })

const catalog = tool(async ({ region }: { region: string }) => JSON.stringify({ region, rows: [] }), {
  name: 'get_catalog',
  description: 'The product catalog.',
  schema: z.object({ region: z.string() }),
})

// The recall tool on its own.
const recallTool: RecallToolResultTool = createRecallToolResultTool(ledger)
const byTenant: NamespaceFn = (config) => String(config.configurable?.tenant ?? '')
const tenantRecall = createRecallToolResultTool(ledger, { namespace: byTenant })
const fixedRecall = createRecallToolResultTool(ledger, { namespace: 'shared', maxOutputChars: 8000 })
const smallAnswers = toolMemoryMiddleware({ ledger, recallMaxChars: 8000 })
const grepArgs: RecallToolResultInput = { mem_id: 'trm_x', pattern: 'ERROR', ignore_case: true, context: 2, lines: '120-' }
const jsLedger = createRecallToolResultTool({ fetch: (memId: string) => `[tool_memory not found: ${memId}]` })
const toolName: 'recall_tool_result' = recallTool.name
const args: RecallToolResultInput = { mem_id: 'trm_0123456789ab', json_path: 'rows.0.price', max_chars: 200 }

async function useTool(): Promise<string> {
  const a: string = await recallTool.invoke(args)
  const b: string = await tenantRecall.invoke({ mem_id: 'trm_0123456789ab', format: 'summary' }, { configurable: { tenant: 7 } })
  const c: string = await fixedRecall.invoke({ mem_id: 'trm_0123456789ab', query: 'price', offset: 0 })
  const d: string = await jsLedger.invoke({ mem_id: 'x' })
  const e: string = await fixedRecall.invoke(grepArgs)
  return a + b + c + d + e + toolName + String(smallAnswers.name)
}

// Compaction by hand.
async function compactByHand(history: BaseMessage[]): Promise<BaseMessage[]> {
  const cacheModel: CacheModel = 'breakpoint'
  const options: CompactOptions = {
    keepLastN: 2,
    sizeChars: 8000,
    evictChars: Infinity,
    evictPreviewChars: 2000,
    compactAfter: 'turn',
    cacheModel,
    exemptTools: ['recall_tool_result', 'search'],
    namespace: 'thread-1',
    windowCalls: 3,
    quotedCalls: 2,
    horizonCalls: 'auto',
  }
  const after: CompactAfter = 'seen'
  const recallAnswers: RecallAnswers = 'note'
  const pricing: CachePricing = { cacheWrite: 1.25, cacheRead: 0.1 }
  const fileReader: PerToolOptions = { sizeChars: 20000, exempt: false }
  const loop: CompactOptions = {
    compactAfter: after,
    keepLastN: 0,
    recallAnswers,
    horizonCalls: Infinity,
    pricing,
    cacheMarks: false,
    perTool: { read_file: fileReader, logs: { evictChars: 40000 } },
  }
  await compactToolMessages(history, ledger, loop)
  const out: BaseMessage[] = await compactToolMessages(history, ledger, options)
  const readonlyHistory: readonly BaseMessage[] = out
  return compactToolMessages(readonlyHistory, ledger)
}

const history: BaseMessage[] = [
  new HumanMessage('hi'),
  new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'get_catalog', args: { region: 'eu' } }] }),
  new ToolMessage({ content: '{}', tool_call_id: 'c1', name: 'get_catalog' }),
]

// createAgent with the middleware.
const memoryOptions: ToolMemoryOptions = {
  ledger,
  keepLastN: 1,
  namespace: (config) => String(config.configurable?.thread_id ?? 'default'),
  windowCalls: Infinity,
}
const middleware: ToolMemoryMiddleware = toolMemoryMiddleware(memoryOptions)
const withDefaults: ToolMemoryMiddleware = toolMemoryMiddleware()
const agent = createAgent({
  model,
  tools: [catalog],
  middleware: [middleware],
  checkpointer: new MemorySaver(),
})

async function runAgent(): Promise<number> {
  const result = await agent.invoke({ messages: [new HumanMessage('catalog?')] }, { configurable: { thread_id: 't1' } })
  return result.messages.length
}

// createReactAgent with the pre-model hook.
const hook: ToolMemoryPreModelHook = toolMemoryPreModelHook({ ledger, cacheModel: 'prefix', namespace: 'react' })
const storedLedger = new Ledger({ store: 'sqlite:./ledger.db', ttlSeconds: 3600 })
const offloadHook: ToolMemoryPreModelHook = toolMemoryPreModelHook({ ledger: storedLedger, offload: true })
const offloadAgent = createReactAgent({ llm: model, tools: [...offloadHook.offloadTools([catalog]), offloadHook.tool], preModelHook: offloadHook })
const offloadMiddleware: ToolMemoryMiddleware = toolMemoryMiddleware({ ledger: storedLedger, offload: true })
const hookLedger: Ledger = hook.ledger
const reactAgent = createReactAgent({
  llm: model,
  tools: [catalog, hook.tool],
  preModelHook: hook,
  checkpointer: new MemorySaver(),
})

async function runHook(): Promise<BaseMessage[]> {
  const { llmInputMessages } = await hook({ messages: history }, { configurable: { thread_id: 'x' } })
  await reactAgent.invoke({ messages: [new HumanMessage('go')] }, { configurable: { thread_id: 'r1' } })
  return llmInputMessages
}

// The defaults and prices the benchmark chose.
const bpDefaults: CompactDefaults = DEFAULTS.breakpoint
const writeMultiplier: number = PRICING.breakpoint.cacheWrite
const defaultAfter: CompactAfter = DEFAULTS.prefix.compactAfter

// The types reject what the runtime would reject.
// @ts-expect-error: not a moment of eligibility
const badAfter: CompactOptions = { compactAfter: 'later' }
// @ts-expect-error: not a way to carry recall answers
const badRecall: CompactOptions = { recallAnswers: 'drop' }
// @ts-expect-error: a misspelled per-tool option
const badPerTool: CompactOptions = { perTool: { read_file: { sizechars: 10 } } }
// @ts-expect-error: a misspelled option
const badOption: CompactOptions = { keepLastn: 1 }
// @ts-expect-error: not a cache model
const badCacheModel: CompactOptions = { cacheModel: 'lru' }
// @ts-expect-error: keepLastN is a number
const badKeep: ToolMemoryOptions = { keepLastN: '2' }
// @ts-expect-error: the gate of the first release is gone (one cost model)
const badGate: CompactOptions = { gate: { inputPricePerMTok: 3 } }
// @ts-expect-error: a horizon is a number of calls or 'auto'
const badHorizon: CompactOptions = { horizonCalls: 'later' }
// @ts-expect-error: the tool's name is a literal
const badName: 'other' = recallTool.name
// @ts-expect-error: compaction needs a ledger
void compactToolMessages(history)
// @ts-expect-error: the createReactAgent hook is not a createAgent middleware
const hookAsMiddleware = createAgent({ model, tools: [catalog], middleware: [hook] })
// @ts-expect-error: the createAgent middleware is not a createReactAgent hook
const middlewareAsHook = createReactAgent({ llm: model, tools: [catalog], preModelHook: middleware })
// @ts-expect-error: a factory passed uncalled is not a middleware
const uncalledMiddleware = createAgent({ model, tools: [catalog], middleware: [toolMemoryMiddleware] })
// @ts-expect-error: nor is the hook's factory
const uncalledHookAsMiddleware = createAgent({ model, tools: [catalog], middleware: [toolMemoryPreModelHook] })
// @ts-expect-error: nor a preModelHook
const uncalledHook = createReactAgent({ llm: model, tools: [catalog], preModelHook: toolMemoryPreModelHook })
// @ts-expect-error: nor a tool
const uncalledTool = createAgent({ model, tools: [catalog, createRecallToolResultTool] })

export { badCacheModel, badKeep, badGate, badHorizon, badName, badAfter, badRecall, badPerTool, badOption, bpDefaults, writeMultiplier, defaultAfter }
export { useTool, compactByHand, runAgent, runHook, hookLedger, withDefaults, offloadAgent, offloadMiddleware, hookAsMiddleware, middlewareAsHook, uncalledMiddleware, uncalledHookAsMiddleware, uncalledHook, uncalledTool }

// Usage (docs/usage.md): the event narrows by type; the totals are typed.
const metered = toolMemoryMiddleware({
  countTokens: (text: string) => Math.ceil(text.length / 3),
  onEvent: (e: ToolMemoryEvent) => {
    if (e.type === 'usage') {
      const saved: number = e.estimate.none.cost - e.estimate.ours.cost
      const input: number | undefined = e.reported?.inputTokens
      void [saved, input, e.factor, e.call]
    }
    if (e.type === 'cacheMiss') {
      const cause: 'noCacheMarks' | 'systemPromptChanged' | 'ttlPassed' | 'unknown' = e.cause
      const reported: ReportedUsage = e.reported
      void [cause, reported]
    }
  },
})
const totals: UsageTotals = usageTotals([] as BaseMessage[], { tools: [catalog], systemPrompt: 'You help.', model })
const savedRatio: number = totals.saving.ratio
// @ts-expect-error: countTokens is a function of the text
const badCounter = toolMemoryMiddleware({ countTokens: 4 })
export { metered, totals, savedRatio, badCounter }
