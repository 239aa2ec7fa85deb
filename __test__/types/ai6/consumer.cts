// Strict consumer of @symfonic/core/ai-sdk against ai 6's types (the `ai-v6`
// alias, mapped to `ai` by this folder's tsconfig paths, for this file and
// the package's declarations alike): CommonJS, nodenext.
import { generateText, streamText, ToolLoopAgent, tool, stepCountIs, type ModelMessage } from 'ai'
import { z } from 'zod/v4'
import { toolMemory, composePrepareStep } from '@symfonic/core/ai-sdk'

declare const model: Parameters<typeof generateText>[0]['model']

const memory = toolMemory({ cacheModel: 'breakpoint', namespace: 'conversation-1' })
const tools = {
  search: tool({ description: 'Search.', inputSchema: z.object({ q: z.string() }), execute: async ({ q }) => `found ${q}` }),
  ...memory.tools,
}

async function run(): Promise<number> {
  const a = await generateText({ model, tools, prepareStep: memory.prepareStep, stopWhen: stepCountIs(5), prompt: 'hi' })
  const s = streamText({ model, tools, prepareStep: composePrepareStep(memory.prepareStep), prompt: 'hi' })
  const agent = new ToolLoopAgent({ model, tools, prepareStep: memory.prepareStep })
  const b = await agent.generate({ prompt: 'hi' })
  const messages: ModelMessage[] = [...a.response.messages, ...b.response.messages]
  return messages.length + (await s.text).length
}
void run
