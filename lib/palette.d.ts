// Role-aware tool palettes: the public types. `index.d.ts` re-exports all of
// this file.

/** Where palette warnings go. Default: `console`. A logger that throws is ignored. */
export type Logger = { warn(message: string): void }

/** The canonical role names. The agent loop resolves the palette with `ACTION`. */
export declare const ROLES: { readonly ACTION: 'action'; readonly DEFAULT: 'default' }

/**
 * A live, per-iteration palette policy: called before every model call with
 * the current state, the role and the tools that would otherwise be bound.
 */
export interface ToolPaletteResolver {
  /**
   * Returns a subset of `allTools` — the same objects, never new ones —,
   * `[]` for "no tools" or `null` for "no policy: bind `allTools` unchanged".
   * Anything else fails closed in `applyPalette` (only the always-on and
   * forced tools), with a warning once per resolver and role naming the
   * cause: throwing or rejecting, returning `undefined` or a non-list, or
   * returning only tools that are not in `allTools`. To open every tool on an
   * error, catch it in `resolve` and return `null`.
   */
  resolve<T extends { name: string }>(state: unknown, role: string, allTools: T[]): Promise<T[] | null> | T[] | null
}

/**
 * What a role without an entry in `roleTools` gets (a typo, or a role name the
 * allowlist does not know):
 * - `'deny'` (the default): no tool from the palette: `resolve` answers `[]`,
 *   `applyPalette` binds only the `alwaysInclude` tools and a forced tool, and
 *   the guard of `toolPaletteMiddleware` refuses every other tool; a warning
 *   once per resolver and role names the known roles and how to open them;
 * - `'allow'`: every tool, silently (no policy for that role).
 *
 * `toolPaletteMiddleware`'s `onEvent` hears an `unknownRole` event under both.
 */
export type UnknownRolePolicy = 'allow' | 'deny'

export interface StaticPaletteResolverOptions {
  /**
   * Allowlist of tool names per role. An entry is an exact tool name, or a
   * prefix when it ends in `*` (`"github_*"`, `"mcp__jira__*"`; `"*"` alone
   * allows every tool). A `*` anywhere else, an empty name, a non-string
   * entry or a bare string instead of a list is a `TypeError`, and so is no
   * `roleTools` (`undefined`/`null`): `{ action: ['*'] }` says "every tool".
   * A role without an entry gets what `unknownRole` says.
   */
  roleTools: Record<string, Iterable<string>>
  /** What a role without an entry in `roleTools` gets. Default `'deny'`. Needs `roleTools`. */
  unknownRole?: UnknownRolePolicy | undefined
  /** Receives the once-per-role configuration warnings. Default: `console`. */
  logger?: Logger | undefined
}

/**
 * The default resolver: `roleTools` compiled once at construction. It fails
 * closed: every misconfiguration answers `[]`, which `applyPalette` honours as
 * "only the always-on and forced tools", with a warning once per resolver and
 * role that says how to open the tools.
 *
 * - no entry for the role → what `unknownRole` says: `[]` (`'deny'`, the
 *   default) or `null`, every tool (`'allow'`, silently);
 * - an empty allowlist → `[]`;
 * - an allowlist that matches none of the tools (a typo: `['serach']`) → `[]`,
 *   the warning naming the sorted allowlist and the closest tool names;
 * - otherwise the matching tools, the same objects, in input order.
 *
 * `resolve` never throws, whatever the state, role or tool list; tools without
 * a string `name` are simply not matched, and a list that cannot be read
 * allows nothing. Verdicts are remembered per tool name, so a call over 500
 * tools costs about what a plain `Set` filter does.
 */
export declare class StaticPaletteResolver implements ToolPaletteResolver {
  /** @throws {TypeError} when `roleTools` is missing or malformed, or `logger` is malformed. */
  constructor(options: StaticPaletteResolverOptions)
  /**
   * The role's subset of `allTools`, or `null` for no policy, or `[]` for
   * "none but the always-on and forced tools" (see the class). Synchronous;
   * never throws.
   */
  resolve<T extends { name: string }>(state: unknown, role: string, allTools: T[]): T[] | null
  /** The roles that have an allowlist entry (possibly empty). */
  get roles(): string[]
  /** What a role without an entry gets. */
  get unknownRole(): UnknownRolePolicy
  /** Whether `role` has an entry in `roleTools`. */
  hasRole(role: string): boolean
  /**
   * Whether the role's allowlist allows a tool named `name` (`false` for an
   * empty allowlist, and for a role without an entry under `'deny'`); `null`
   * when no policy applies (a role without an entry under `'allow'`).
   */
  allows(role: string, name: string): boolean | null
}

/**
 * Resolves the palette with a static allowlist, as `StaticPaletteResolver`
 * does (failing closed). The allowlist is compiled on first use per `roleTools` object and
 * reused while that object is (so hoist it; a new object per call recompiles,
 * and later mutations of the same object are not seen). Warnings are issued
 * once per `roleTools` object and role. No `options` or no `roleTools` → `null`.
 *
 * @returns the role's subset of `allTools` (same objects, input order), `null`
 * (no policy), or `[]` (none but the always-on and forced tools: a role without
 * an entry, an empty allowlist, or one that matches no tool).
 * Rejects with a `TypeError` only for malformed options.
 */
export declare function resolvePalette<T extends { name: string }>(
  state: unknown,
  role: string,
  allTools: T[],
  options: StaticPaletteResolverOptions,
): Promise<T[] | null>

export interface ApplyPaletteInput<T extends { name: string }> {
  /** The agent state, passed to the resolver. */
  state: unknown
  /** The role to resolve the palette for, e.g. `ROLES.ACTION`. */
  role: string
  /** Every tool the agent has. */
  allTools: T[]
  /** Intent narrowing (the tools already routed to); used instead of `allTools` when non-empty. */
  resolvedTools?: T[] | null | undefined
  /**
   * The palette policy, or `null` for none (every tool; the forced choice and
   * `alwaysInclude` still apply). Required: an undefined resolver is a
   * `TypeError`, not "no palette".
   */
  resolver: ToolPaletteResolver | null
  /**
   * A tool the model must call. If the palette excluded it, it is appended
   * back (the instance from the unfiltered list) with a warning, once per
   * (forced tool, role) and resolver (per logger when there is no resolver).
   * A name that is in no list is not forced (warning, once).
   */
  forcedToolChoice?: string | null | undefined
  /**
   * Names of the tools kept whatever the palette says, appended after it when
   * present in `allTools` (names, not tool objects: the instances bound are
   * those of `allTools`). Default: `["recall_tool_result"]`.
   */
  alwaysInclude?: string[] | undefined
  /** Receives the warnings. Default: `console`. */
  logger?: Logger | undefined
}

export interface AppliedPalette<T> {
  /** The tools to bind: the palette in input order, then the forced tool, then `alwaysInclude`; no duplicates. */
  tools: T[]
  /** The forced tool's name while it is bound, else `undefined`. */
  toolChoice: string | undefined
}

/**
 * The agent loop's palette rules, in order: start from `resolvedTools` when
 * non-empty, else `allTools`; ask the resolver with the role (`null`: no
 * filter, `[]`: no tools; a resolver that throws or rejects, returns
 * `undefined` or a non-list, or only tools that are not in the list, fails
 * closed: no tools, with a warning once per resolver and role); append
 * an excluded forced tool back and return it as `toolChoice`; append the
 * `alwaysInclude` tools. The result keeps input order and holds no duplicates
 * (by object, and by name).
 *
 * Rejects with a `TypeError` only for a malformed `input`, `resolver`
 * (`undefined` included), `alwaysInclude` or `logger`.
 */
export declare function applyPalette<T extends { name: string }>(input: ApplyPaletteInput<T>): Promise<AppliedPalette<T>>
