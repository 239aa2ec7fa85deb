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
   * Returns a subset of `allTools` — the same objects, never new ones — or
   * `null` for "no policy: bind `allTools` unchanged". Returning `[]` is
   * treated by `applyPalette` as a misconfiguration: it abstains to the
   * unfiltered list, with a warning. A resolver that throws or rejects means
   * no filter for that call, with a warning.
   */
  resolve<T extends { name: string }>(state: unknown, role: string, allTools: T[]): Promise<T[] | null> | T[] | null
}

/**
 * What a role without an entry in `roleTools` gets (a typo, or a role name the
 * allowlist does not know):
 * - `'allow'`: every tool, silently (no policy for that role);
 * - `'warn'` (the default): every tool, and a warning once per resolver and
 *   role naming the known roles (and `toolPaletteMiddleware`'s `onEvent` hears
 *   an `unknownRole` event);
 * - `'deny'`: no tool from the palette: `resolve` answers `[]`, `applyPalette`
 *   binds only the `alwaysInclude` tools and a forced tool, and the guard of
 *   `toolPaletteMiddleware` refuses every other tool (also warned once).
 */
export type UnknownRolePolicy = 'allow' | 'warn' | 'deny'

export interface StaticPaletteResolverOptions {
  /**
   * Allowlist of tool names per role. An entry is an exact tool name, or a
   * prefix when it ends in `*` (`"github_*"`, `"mcp__jira__*"`; `"*"` alone
   * allows every tool). A `*` anywhere else, an empty name, a non-string
   * entry or a bare string instead of a list is a `TypeError`. A role without
   * an entry gets what `unknownRole` says. `undefined`/`null`: no policy for
   * any role (every tool, no warning).
   */
  roleTools: Record<string, Iterable<string>>
  /** What a role without an entry in `roleTools` gets. Default `'warn'`. Needs `roleTools`. */
  unknownRole?: UnknownRolePolicy
  /** Receives the once-per-role configuration warnings. Default: `console`. */
  logger?: Logger
}

/**
 * The default resolver: `roleTools` compiled once (natively) at construction.
 *
 * - no entry for the role → what `unknownRole` says: `null` (`'allow'`),
 *   `null` and a warning once per resolver and role (`'warn'`, the default),
 *   or `[]`, which `applyPalette` honours as "only the always-on and forced
 *   tools" (`'deny'`, also warned once);
 * - an empty allowlist → `null`, and a warning (once per resolver and role)
 *   that an empty palette is a configuration error;
 * - an allowlist that matches none of the tools → `null`, and a warning (once
 *   per resolver and role) naming the sorted allowlist;
 * - otherwise the matching tools, the same objects, in input order.
 *
 * `resolve` never throws, whatever the state, role or tool list; tools without
 * a string `name` are simply not matched. Tool names cross to the native side
 * once per tool list (the list is remembered in a `WeakMap` and re-checked on
 * every call), so repeated calls over the same list cost a few microseconds.
 */
export declare class StaticPaletteResolver implements ToolPaletteResolver {
  /** @throws {TypeError} when `roleTools` or `logger` is malformed. */
  constructor(options: StaticPaletteResolverOptions)
  /**
   * The role's subset of `allTools`, or `null` for no policy, or `[]` for a
   * role without an entry under `unknownRole: 'deny'`. Synchronous; never throws.
   */
  resolve<T extends { name: string }>(state: unknown, role: string, allTools: T[]): T[] | null
  /** The roles that have an allowlist entry (possibly empty). */
  get roles(): string[]
  /** What a role without an entry gets. */
  get unknownRole(): UnknownRolePolicy
  /** Whether `role` has an entry in `roleTools`. */
  hasRole(role: string): boolean
  /**
   * Whether the role's allowlist allows a tool named `name`; `null` when the
   * role has no usable policy (an empty allowlist, or no entry under
   * `unknownRole` `'allow'` or `'warn'`); `false` for a role without an entry
   * under `'deny'`. It cannot see the "matches none of the tools" case, which
   * needs the whole list.
   */
  allows(role: string, name: string): boolean | null
}

/**
 * Resolves the palette with a static allowlist, as `StaticPaletteResolver`
 * does. The allowlist is compiled on first use per `roleTools` object and
 * reused while that object is (so hoist it; a new object per call recompiles,
 * and later mutations of the same object are not seen). Warnings are issued
 * once per `roleTools` object and role. No `options` or no `roleTools` → `null`.
 *
 * @returns the role's subset of `allTools` (same objects, input order), `null`
 * (no policy), or `[]` (a role without an entry under `unknownRole: 'deny'`).
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
  resolvedTools?: T[] | null
  /** The palette policy; none → no filter. */
  resolver?: ToolPaletteResolver | null
  /**
   * A tool the model must call. If the palette excluded it, it is appended
   * back (the instance from the unfiltered list) with a warning, once per
   * (forced tool, role) and resolver (per logger when there is no resolver).
   * A name that is in no list is not forced (warning, once).
   */
  forcedToolChoice?: string | null
  /**
   * Names of the tools kept whatever the palette says, appended after it when
   * present in `allTools` (names, not tool objects: the instances bound are
   * those of `allTools`). Default: `["recall_tool_result"]`.
   */
  alwaysInclude?: string[]
  /** Receives the warnings. Default: `console`. */
  logger?: Logger
}

export interface AppliedPalette<T> {
  /** The tools to bind: the palette in input order, then the forced tool, then `alwaysInclude`; no duplicates. */
  tools: T[]
  /** The forced tool's name while it is bound, else `undefined`. */
  toolChoice: string | undefined
}

/**
 * The agent loop's palette rules, in order: start from `resolvedTools` when
 * non-empty, else `allTools`; ask the resolver with the role (a resolver that
 * throws or rejects, or returns `[]`, means no filter, with a warning; the
 * `[]` of a `StaticPaletteResolver` under `unknownRole: 'deny'` is kept); append
 * an excluded forced tool back and return it as `toolChoice`; append the
 * `alwaysInclude` tools. The result keeps input order and holds no duplicates
 * (by object, and by name).
 *
 * Rejects with a `TypeError` only for a malformed `input`, `alwaysInclude` or
 * `logger`.
 */
export declare function applyPalette<T extends { name: string }>(input: ApplyPaletteInput<T>): Promise<AppliedPalette<T>>
