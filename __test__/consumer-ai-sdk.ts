// Strict consumer of @symfonic/core/ai-sdk with the real `ai` types (ai 7),
// type-checked only (`npm run typecheck`).
import { generateText, streamText, ToolLoopAgent, tool, isStepCount, type ModelMessage, type PrepareStepFunction } from 'ai'
import { z } from 'zod/v4'
import { toolMemory, composePrepareStep, usageTotals, type AiSdkToolMemoryOptions, type UsageTotals } from '@symfonic/core/ai-sdk'
import { Ledger } from '@symfonic/core'

declare const model: Parameters<typeof generateText>[0]['model']

const options: AiSdkToolMemoryOptions = { ledger: new Ledger(), cacheModel: 'breakpoint', perTool: { search: { sizeChars: 500 } }, onEvent: (e) => void e.type }
const memory = toolMemory(options)
const tools = {
  search: tool({ description: 'Search.', inputSchema: z.object({ q: z.string() }), execute: async ({ q }) => `found ${q}` }),
  ...memory.tools,
}

async function run(): Promise<string> {
  const a = await generateText({ model, tools, prepareStep: memory.prepareStep, stopWhen: isStepCount(5), prompt: 'hi' })
  const s = streamText({ model, tools, prepareStep: memory.prepareStep, prompt: 'hi' })
  const mine: PrepareStepFunction<typeof tools> = ({ stepNumber }) => (stepNumber > 3 ? { activeTools: ['search'] } : {})
  const agent = new ToolLoopAgent({ model, tools, prepareStep: composePrepareStep(memory.prepareStep, mine) })
  const b = await agent.generate({ prompt: 'hi' })
  const messages: ModelMessage[] = b.response.messages
  const totals: UsageTotals = usageTotals(messages, { usage: a.steps.map((step) => step.usage), tools, model: 'claude-sonnet-4-5', countTokens: (text) => text.length / 4 })
  return a.text + (await s.text) + messages.length + totals.modelCalls
}
void run
// @ts-expect-error offload is not an option of toolMemory
toolMemory({ offload: true })
