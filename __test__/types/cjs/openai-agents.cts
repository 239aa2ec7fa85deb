// Strict consumer of @symfonic/core/openai-agents, type-checked only (`npm run typecheck`):
// CommonJS, `module`/`moduleResolution` `nodenext` (a .cts file: the `require` condition).

import { Ledger } from '@symfonic/core'
import { toolMemory, usageTotals, type ToolMemory, type ToolMemoryOptions, type ToolMemoryEvent, type UsageTotals } from '@symfonic/core/openai-agents'
import { Agent, run, tool, type CallModelInputFilter } from '@openai/agents'

type Ctx = { userId: string }

const options: ToolMemoryOptions<Ctx> = {
  ledger: new Ledger(),
  namespace: (context) => context?.userId ?? '',
  perTool: { get_orders: { sizeChars: 1000 } },
  onEvent: (e: ToolMemoryEvent) => void e.type,
}
const memory: ToolMemory = toolMemory(options)
const search = tool({
  name: 'search',
  description: 'Search the catalog.',
  parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'], additionalProperties: false },
  execute: async (input) => `found ${JSON.stringify(input)}`,
})
const agent = new Agent({ name: 'shop', instructions: 'Answer.', tools: [search, ...memory.tools] })

// The user's own filter, composed with ours.
const mine: CallModelInputFilter = async ({ modelData }) => ({ ...modelData, instructions: `${modelData.instructions ?? ''}\nBe brief.` })
const both: CallModelInputFilter = async (args) => memory.callModelInputFilter({ ...args, modelData: await mine(args) })

export async function answer(): Promise<string | undefined> {
  const result = await run(agent, 'hi', { callModelInputFilter: both, context: { userId: 'u1' } })
  const totals: UsageTotals = usageTotals(result.history, { tools: agent.tools, instructions: 'Be brief.', usage: result.state.usage })
  return `${result.finalOutput} ${totals.saving.ratio}`
}

// @ts-expect-error an unknown option
toolMemory({ sizechars: 10 })
// @ts-expect-error the namespace function takes the run's context
toolMemory<Ctx>({ namespace: (context: number) => String(context) })
