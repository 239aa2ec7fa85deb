import type { AgentMiddleware, Runtime } from 'langchain'
import type { BaseMessage } from '@langchain/core/messages'
import type { Logger, ToolPaletteResolver, UnknownRolePolicy } from '../lib/palette'

/** The state a role or forced-choice function sees: the messages, plus any state fields of the middleware. */
export type ToolPaletteState = { messages: BaseMessage[] } & Record<string, unknown>

/** The palette policy as a static allowlist. */
export interface ToolPaletteRoleToolsOptions {
  /**
   * Allowlist of tool names per role (exact names, or prefixes ending in
   * `*`), compiled once into a `StaticPaletteResolver`. Give this or
   * `resolver`, not both (with neither, the call is a `TypeError`:
   * `roleTools: { action: ['*'] }` says "every tool"). A role whose allowlist
   * is empty or matches no tool (a typo) gets only the `alwaysInclude` tools
   * and a forced tool, the guard refusing the rest, with a warning once per role.
   */
  roleTools: Record<string, Iterable<string>>
  /**
   * What a role without an entry in `roleTools` gets: only the `alwaysInclude`
   * tools and a forced tool, the guard refusing the rest, with a warning once
   * per role through `logger` (`'deny'`, the default), or every tool, silently
   * (`'allow'`). Either way `onEvent` hears an `unknownRole` event once per
   * role. Only with `roleTools`.
   */
  unknownRole?: UnknownRolePolicy | undefined
  resolver?: undefined
}

/** The palette policy as a custom resolver. */
export interface ToolPaletteResolverOptions {
  /**
   * A custom palette policy, called before every model call. Its `null` means
   * every tool, `[]` none; a resolver that throws or rejects, or returns
   * anything but a list or `null`, or only tools that are not in the list,
   * fails closed (only the `alwaysInclude` tools and a forced tool), with a
   * warning once per role.
   */
  resolver: ToolPaletteResolver
  roleTools?: undefined
  unknownRole?: undefined
}

/**
 * The options of `toolPaletteMiddleware`: a policy, `roleTools` or
 * `resolver` (one of them is required), and the options below.
 */
export type ToolPaletteMiddlewareOptions = (ToolPaletteRoleToolsOptions | ToolPaletteResolverOptions) & ToolPaletteCommonOptions

export interface ToolPaletteCommonOptions {
  /**
   * The role to resolve the palette for, or a function of the state and
   * runtime (synchronous: a function that returns a Promise or anything but a
   * string fails closed, with a warning). Default: `"action"`.
   */
  role?: string | ((state: ToolPaletteState, runtime: Runtime<unknown>) => string) | undefined
  /**
   * A tool the model must call, or a function returning one (or `undefined`).
   * While forced, the tool is bound even if the palette excludes it, and
   * `request.toolChoice` is set to its name; the choice is released once a
   * ToolMessage from that tool exists in the conversation.
   */
  forcedToolChoice?: string | ((state: ToolPaletteState, runtime: Runtime<unknown>) => string | undefined) | undefined
  /** Names of the tools bound whatever the palette says (names, not tool objects). Default: `["recall_tool_result"]`. */
  alwaysInclude?: string[] | undefined
  /**
   * Guard execution (default `true`): a call to a tool outside the palette
   * that was bound for the model call that produced it is answered with an
   * error ToolMessage naming the role and the available tools, and the tool
   * does not run. The guard also turns tool errors into error ToolMessages
   * (LangChain stops doing so once any `wrapToolCall` is present) and
   * re-throws interrupts and other LangGraph control flow.
   */
  guard?: boolean | undefined
  /** Receives the palette warnings. Default: `console`. */
  logger?: Logger | undefined
  /** Receives a small event for each palette decision worth counting (never throws into the agent). */
  onEvent?: ((event: ToolPaletteEvent) => void) | undefined
}

/** What `toolPaletteMiddleware` reports through `onEvent`. */
export type ToolPaletteEvent =
  /** A model call was bound without these tools (names; `undefined` for unnamed tools). */
  | { type: 'toolsHidden'; role: string; hidden: Array<string | undefined>; bound: number }
  /** A forced tool choice outside the palette was bound anyway. */
  | { type: 'forcedToolAdded'; role: string; tool: string }
  /** The guard refused to run a tool outside the palette of the call that made it. */
  | { type: 'toolCallRefused'; role: string; tool: string; toolCallId: string }
  /** A role without an entry in `roleTools` met the `unknownRole` policy (once per role). */
  | { type: 'unknownRole'; role: string; policy: UnknownRolePolicy; roles: string[] }

/**
 * Role-aware tool palettes for `createAgent`: narrows `request.tools` in
 * `wrapModelCall` (through `applyPalette`), forces a tool choice while it is
 * pending, and, with `guard`, refuses to run tools outside the palette.
 *
 * @throws {TypeError} without `roleTools` or `resolver` (an undefined one included), and for
 * malformed options, naming the option (`toolPaletteMiddleware(options): unknown option "roletools"; did you mean "roleTools"?`).
 */
export declare function toolPaletteMiddleware(options: ToolPaletteMiddlewareOptions): AgentMiddleware
/**
 * `toolPaletteMiddleware` itself is not a middleware: passed without calling it, it is a `TypeError` when
 * the agent is built (reading this property throws), and typed as this message so that
 * TypeScript refuses it there too, quoting it (in a tuple: tsc widens a bare string literal to
 * `string` in its error).
 */
export declare namespace toolPaletteMiddleware {
  const wrapModelCall: readonly ['toolPaletteMiddleware makes a middleware: call it, toolPaletteMiddleware({ roleTools, role })']
}
