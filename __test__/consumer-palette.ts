// A strict TypeScript consumer of the tool-palette API of `@symfonic/core`
// and `@symfonic/core/langchain`. Type-checked only (`npm run typecheck`).

import {
  ROLES,
  StaticPaletteResolver,
  applyPalette,
  resolvePalette,
  type AppliedPalette,
  type ApplyPaletteInput,
  type Logger,
  type StaticPaletteResolverOptions,
  type ToolPaletteResolver,
} from '@symfonic/core'
import { toolPaletteMiddleware, type ToolPaletteMiddlewareOptions, type ToolPaletteState } from '@symfonic/core/langchain'
import { createAgent, tool, type AgentMiddleware } from 'langchain'
import { type BaseMessage } from '@langchain/core/messages'
import type { BaseChatModel } from '@langchain/core/language_models/chat_models'
import { z } from 'zod'

declare const model: BaseChatModel

interface MyTool {
  name: string
  run(input: string): Promise<string>
}
const myTools: MyTool[] = ['search', 'github_list_issues', 'recall_tool_result'].map((name) => ({
  name,
  run: async (input: string) => `${name}: ${input}`,
}))

const action: 'action' = ROLES.ACTION
const fallback: 'default' = ROLES.DEFAULT
// @ts-expect-error ROLES is read-only
ROLES.ACTION = 'other'

const logger: Logger = { warn: (message: string) => void message.length }
const options: StaticPaletteResolverOptions = {
  roleTools: { [action]: ['search', 'github_*'], [fallback]: new Set(['search']) },
  logger,
}
// @ts-expect-error roleTools lists are iterables of strings, not strings
const _bad: StaticPaletteResolverOptions = { roleTools: { action: [1, 2] } }
// @ts-expect-error a static resolver needs roleTools: without, it would allow every tool
const _none: StaticPaletteResolverOptions = { logger }

const resolver = new StaticPaletteResolver(options)
const subset: MyTool[] | null = resolver.resolve({ messages: [] }, action, myTools)
const roles: string[] = resolver.roles
const allowed: boolean | null = resolver.allows(action, 'search')
const asInterface: ToolPaletteResolver = resolver

// A custom, async resolver written against the interface.
const tenantResolver: ToolPaletteResolver = {
  async resolve<T extends { name: string }>(state: unknown, role: string, allTools: T[]): Promise<T[] | null> {
    const tenant = (state as { tenant?: string } | null)?.tenant
    if (tenant === undefined) return null
    return allTools.filter((t) => t.name.startsWith(`${tenant}_`) || role === ROLES.DEFAULT)
  },
}

// The README's example: a contextually typed, async resolver.
declare const policyService: { toolsFor(tenant: string, role: string): Promise<Set<string> | null> }
declare function tenantOf(state: unknown): string
const tenantPalette: ToolPaletteResolver = {
  async resolve(state, role, allTools) {
    const allowed = await policyService.toolsFor(tenantOf(state), role)
    if (!allowed) return null
    return allTools.filter((t) => allowed.has(t.name))
  },
}
void tenantPalette

async function main(): Promise<void> {
  const resolved: MyTool[] | null = await resolvePalette({}, action, myTools, { roleTools: { action: ['search'] } })
  const input: ApplyPaletteInput<MyTool> = {
    state: { tenant: 'acme' },
    role: action,
    allTools: myTools,
    resolvedTools: resolved,
    resolver: tenantResolver,
    forcedToolChoice: 'search',
    alwaysInclude: ['recall_tool_result'],
    logger,
  }
  const applied: AppliedPalette<MyTool> = await applyPalette(input)
  const first: MyTool | undefined = applied.tools[0]
  const choice: string | undefined = applied.toolChoice
  await first?.run(choice ?? '')
  // the minimal input: no palette is said with resolver: null
  const minimal = await applyPalette({ state: null, role: 'action', allTools: myTools, resolver: null })
  // @ts-expect-error the resolver is required: undefined is not "no palette"
  await applyPalette({ state: null, role: 'action', allTools: myTools })
  const names: string[] = minimal.tools.map((t) => t.name)
  void [subset, roles, allowed, asInterface, names]

  // @ts-expect-error tools need a string name
  await applyPalette({ state: null, role: 'action', allTools: [{ id: 1 }], resolver: null })
}

// The middleware, in every configuration the options allow.
const search = tool(async ({ q }: { q: string }) => `found ${q}`, {
  name: 'search',
  description: 'search',
  schema: z.object({ q: z.string() }),
})

const middlewareOptions: ToolPaletteMiddlewareOptions = {
  roleTools: { action: ['search', 'mcp__jira__*'] },
  role: (state: ToolPaletteState) => (state.messages.length > 10 ? ROLES.DEFAULT : ROLES.ACTION),
  forcedToolChoice: (state: ToolPaletteState): string | undefined => {
    const messages: BaseMessage[] = state.messages
    return messages.length === 1 ? 'search' : undefined
  },
  alwaysInclude: ['recall_tool_result'],
  guard: true,
  logger,
}
const palette: AgentMiddleware = toolPaletteMiddleware(middlewareOptions)
const withResolver = toolPaletteMiddleware({ resolver: tenantResolver, role: 'action', forcedToolChoice: 'search' })
const everyTool = toolPaletteMiddleware({ roleTools: { action: ['*'] }, forcedToolChoice: 'search' })
// @ts-expect-error guard is a boolean
toolPaletteMiddleware({ roleTools: { action: ['search'] }, guard: 'yes' })
// @ts-expect-error no policy: roleTools or resolver is required
toolPaletteMiddleware()
// @ts-expect-error no policy: a role alone would bind every tool
toolPaletteMiddleware({ role: 'action' })
// @ts-expect-error no policy: an undefined roleTools is none
toolPaletteMiddleware({ roleTools: undefined, role: 'admin' })
// @ts-expect-error roleTools or resolver, not both
toolPaletteMiddleware({ roleTools: { action: ['search'] }, resolver: tenantResolver })
// @ts-expect-error unknownRole applies to roleTools only
toolPaletteMiddleware({ resolver: tenantResolver, unknownRole: 'allow' })

const agent = createAgent({ model, tools: [search], middleware: [palette, withResolver, everyTool] })
void [agent, main]
