// The agent of the example server: two tools, both middlewares, one ledger.
// `get_catalog` answers a large JSON catalog (the kind of result tool-result
// memory keeps out of the prompt); `delete_repo` is a dangerous tool that the
// palette hides from the 'support' role, and the guard refuses to run.

import { createAgent, tool } from 'langchain'
import type { BaseChatModel } from '@langchain/core/language_models/chat_models'
import type { BaseCheckpointSaver } from '@langchain/langgraph'
import { z } from 'zod'
import type { Ledger } from '@symfonic/core'
import { toolMemoryMiddleware, toolPaletteMiddleware } from '@symfonic/core/langchain'

/** A deterministic catalog of one category, cheapest first (about 100,000 characters for 1,500 items). */
export function catalogOf(category: string, count = 400): string {
  const items = Array.from({ length: count }, (_, i) => ({
    sku: `${category.slice(0, 3).toUpperCase()}-${String(i).padStart(4, '0')}`,
    title: `${category} item ${i}`,
    price: Math.round((4.99 + i * 0.75) * 100) / 100,
    stock: (i * 37) % 11,
  }))
  return JSON.stringify({ category, currency: 'USD', items })
}

const getCatalog = tool(async ({ category }) => catalogOf(category, 1500), {
  name: 'get_catalog',
  description: 'The product catalog of one category as JSON ({ category, currency, items[] }), cheapest first.',
  schema: z.object({ category: z.string().describe('e.g. "garden"') }),
})

export const deleted: string[] = []
const deleteRepo = tool(
  async ({ repo }) => {
    deleted.push(repo)
    return `deleted ${repo}`
  },
  { name: 'delete_repo', description: 'Delete a repository.', schema: z.object({ repo: z.string() }) },
)

export interface AgentOptions {
  /** A chat model, or a model id such as 'anthropic:claude-sonnet-4-5'. */
  model: BaseChatModel | string
  /** The ledger every request shares (here: over a SQLite file). */
  ledger: Ledger
  /** Where the conversations' state lives between requests. */
  checkpointer: BaseCheckpointSaver
}

export function buildAgent({ model, ledger, checkpointer }: AgentOptions) {
  return createAgent({
    model,
    tools: [getCatalog, deleteRepo],
    middleware: [
      // Large results become stubs; the model reads slices with recall_tool_result.
      // offload: results over evictChars go to the ledger's SQLite file when
      // the tool returns them, and the checkpoints keep only their stubs.
      toolMemoryMiddleware({ ledger, offload: true }),
      // The support role sees get_catalog (and recall_tool_result); any other
      // role sees nothing but the recall tool, and the guard refuses the rest.
      toolPaletteMiddleware({ roleTools: { support: ['get_catalog'] }, role: 'support', unknownRole: 'deny' }),
    ],
    checkpointer,
  })
}
