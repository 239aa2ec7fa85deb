// Strict consumer of @symfonic/core, type-checked only (`npm run typecheck`):
// ESM, `module`/`moduleResolution` `nodenext` (a .mts file: the `import` condition).

import { Ledger, recall, resolvePalette, type ToolResultHandle } from '@symfonic/core'
import {
  toolMemoryMiddleware,
  toolMemoryPreModelHook,
  toolPaletteMiddleware,
  type ToolMemoryPreModelHook,
} from '@symfonic/core/langchain'
import { createAgent, tool } from 'langchain'
import { createReactAgent } from '@langchain/langgraph/prebuilt'
import { HumanMessage } from '@langchain/core/messages'
import type { BaseChatModel } from '@langchain/core/language_models/chat_models'
import { z } from 'zod'

declare const model: BaseChatModel

const search = tool(async ({ q }: { q: string }) => `found ${q}`, {
  name: 'search',
  description: 'Search the catalog.',
  schema: z.object({ q: z.string() }),
})

// Values of the root entry.
const ledger = new Ledger({ maxBytes: 16 * 1024 * 1024 })

async function useRoot(): Promise<string> {
  const handle: ToolResultHandle = await ledger.record({ toolCallId: 'c1', toolName: 'search', content: 'rows' })
  const text: string = await recall(ledger, handle.memId, { format: 'full' })
  const subset: { name: string }[] | null = await resolvePalette({}, 'action', [search], { roleTools: { action: ['search'] } })
  return text + String(subset?.length)
}

// createAgent (langchain) with both middlewares: TS2769 when our types and the
// caller's code see different copies (.d.cts / .d.ts) of LangChain's declarations.
const agent = createAgent({
  model,
  tools: [search],
  middleware: [toolMemoryMiddleware(), toolPaletteMiddleware({ roleTools: { action: ['search', 'recall_tool_result'] } })],
})

// createReactAgent (LangGraph) with the pre-model hook's recall tool: TS2322 on mismatch.
const hook: ToolMemoryPreModelHook = toolMemoryPreModelHook({ ledger, namespace: 'react' })
const reactAgent = createReactAgent({ llm: model, tools: [search, hook.tool], preModelHook: hook })

async function run(): Promise<number> {
  const a = await agent.invoke({ messages: [new HumanMessage('hi')] })
  const b = await reactAgent.invoke({ messages: [new HumanMessage('hi')] })
  return a.messages.length + b.messages.length
}

// @ts-expect-error roleTools lists are iterables of strings
toolPaletteMiddleware({ roleTools: { action: [1] } })

// A factory passed uncalled is not a middleware (a TypeError at run time too).
// @ts-expect-error toolMemoryMiddleware without ()
createAgent({ model, tools: [search], middleware: [toolMemoryMiddleware] })
// @ts-expect-error toolPaletteMiddleware without ()
createAgent({ model, tools: [search], middleware: [toolPaletteMiddleware] })

// The default import is the CommonJS `module.exports`, as Node gives it.
import core from '@symfonic/core'
import langchain from '@symfonic/core/langchain'
const viaDefault: Ledger = new core.Ledger()
const middleware = langchain.toolMemoryMiddleware()

export { useRoot, run, viaDefault, middleware }
// @ts-expect-error `module.exports` has no `default`
void core.default

// @symfonic/core/ai-sdk beside the real `ai` types.
import { toolMemory as aiSdkToolMemory, composePrepareStep } from '@symfonic/core/ai-sdk'
import { generateText, type ModelMessage } from 'ai'

declare const aiModel: Parameters<typeof generateText>[0]['model']
const aiMemory = aiSdkToolMemory({ cacheModel: 'prefix', namespace: 'conversation-1' })
async function useAiSdk(): Promise<ModelMessage[]> {
  const r = await generateText({ model: aiModel, tools: { ...aiMemory.tools }, prepareStep: composePrepareStep(aiMemory.prepareStep), prompt: 'hi' })
  return r.response.messages
}
void useAiSdk
