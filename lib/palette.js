'use strict'
// Role-aware tool palettes: the static resolver (roleTools and the
// unknownRole policy) and resolvePalette. Resolvers hand back the caller's own
// tool objects, in input order. The agent loop's rules around any resolver are
// in apply-palette.js.

const { checkKeys, closest, describe, checkLogger } = require('./options.js')

const ROLES = Object.freeze({ ACTION: 'action', DEFAULT: 'default' })
// What a role without an entry in `roleTools` gets (a typo, a custom role):
// none but the always-on and forced tools ('deny', the default), or every tool ('allow').
const UNKNOWN_ROLE = Object.freeze(['allow', 'deny'])
const DEFAULT_UNKNOWN_ROLE = 'deny'
// Other names users give roleTools (`toolPaletteMiddleware({ roles })`).
const ROLE_TOOLS_ALIASES = ['roles', 'roleTool', 'tools', 'allowlist', 'allowList', 'allowlists', 'palette', 'palettes', 'toolsByRole', 'roleToolMap']

// How every denial warning ends: what the role gets.
const DENIED = 'binding only the always-on and forced tools (every other call is refused)'

// ---------------------------------------------------------------- helpers

function checkUnknownRole(where, unknownRole, roleTools) {
  if (unknownRole === undefined) return DEFAULT_UNKNOWN_ROLE
  if (unknownRole === 'warn') {
    throw new TypeError(
      `${where}: unknownRole 'warn' was removed: a role without an entry in roleTools now gets no tools ('deny', the default, warned once); pass unknownRole: 'allow' to give it every tool`,
    )
  }
  if (!UNKNOWN_ROLE.includes(unknownRole)) {
    throw new TypeError(`${where}: unknownRole must be one of ${UNKNOWN_ROLE.map((v) => `'${v}'`).join(', ')}, got ${describe(unknownRole)}`)
  }
  // A policy for roles missing from roleTools means nothing without roleTools;
  // 'deny' without it would silently allow everything.
  if (roleTools === undefined || roleTools === null) {
    throw new TypeError(`${where}: unknownRole applies to roles missing from roleTools; pass roleTools too`)
  }
  return unknownRole
}

// `fn: unknown option "roles"; did you mean "roleTools"?` for the usual other names.
function checkOptionKeys(where, options, known) {
  let alias
  try {
    alias = ROLE_TOOLS_ALIASES.find((k) => Object.hasOwn(options, k))
  } catch {
    // unreadable options: checkKeys says so
  }
  if (alias !== undefined) {
    throw new TypeError(`${where}: unknown option "${alias}"; did you mean "roleTools"? (a map of role names to lists of tool names; known: ${known.join(', ')})`)
  }
  checkKeys(where, options, known)
}

// A logger that throws must not take the agent loop down with it.
function warn(logger, message) {
  try {
    ;(logger ?? console).warn(message)
  } catch {
    // ignored on purpose
  }
}

function warnOnce(seen, key, logger, message) {
  if (seen.has(key)) return
  seen.add(key)
  warn(logger, message)
}

function textOf(value) {
  try {
    return String(value)
  } catch {
    return 'unprintable'
  }
}

function errorText(error) {
  return error instanceof Error ? error.message : textOf(error)
}

function nameOf(tool) {
  if (tool === null || (typeof tool !== 'object' && typeof tool !== 'function')) return undefined
  const name = tool.name
  return typeof name === 'string' ? name : undefined
}

// Verdicts remembered per allowlist: an agent asks about the same names before
// every model call, and a Map lookup costs what the plain Set filter does.
const MEMO_NAMES = 4096

// One allowlist as a test of a tool name: exact names in a Set, entries ending
// in `*` as prefixes (`*` alone: every name). Names compare as JS strings do,
// UTF-16 unit for unit.
function matcherOf(entries) {
  const exact = new Set()
  const prefixes = []
  for (const entry of entries) {
    if (entry.endsWith('*')) prefixes.push(entry.slice(0, -1))
    else exact.add(entry)
  }
  const memo = new Map()
  return (name) => {
    let allowed = memo.get(name)
    if (allowed === undefined) {
      allowed = exact.has(name) || prefixes.some((prefix) => name.startsWith(prefix))
      if (memo.size >= MEMO_NAMES) memo.clear()
      memo.set(name, allowed)
    }
    return allowed
  }
}

// Compiles `roleTools` into a map of role name -> { allows, empty, sorted }.
// Throws TypeError for anything malformed: that is a programmer error, and the
// only place where palette code throws.
function compileRoleTools(roleTools, where) {
  const roles = new Map()
  if (typeof roleTools !== 'object' || Array.isArray(roleTools) || roleTools instanceof Map) {
    throw new TypeError(
      `${where}: roleTools must be a plain object mapping role names to lists of tool names, got ${describe(roleTools)}`,
    )
  }
  for (const role of Object.keys(roleTools)) {
    const value = roleTools[role]
    if (typeof value === 'string') {
      throw new TypeError(
        `${where}: roleTools['${role}'] is the string ${JSON.stringify(value)}; give a list of tool names, e.g. [${JSON.stringify(value)}]`,
      )
    }
    if (value === null || typeof value !== 'object' || typeof value[Symbol.iterator] !== 'function') {
      throw new TypeError(`${where}: roleTools['${role}'] must be an iterable of tool names, got ${describe(value)}`)
    }
    const entries = []
    for (const entry of value) {
      if (typeof entry !== 'string') {
        throw new TypeError(`${where}: roleTools['${role}'] holds ${describe(entry)}; tool names are strings`)
      }
      if (entry === '') {
        throw new TypeError(`${where}: roleTools['${role}'] holds an empty tool name`)
      }
      const star = entry.indexOf('*')
      if (star !== -1 && star !== entry.length - 1) {
        throw new TypeError(
          `${where}: roleTools['${role}'] holds '${entry}': only a trailing '*' (prefix match, e.g. 'github_*') is supported`,
        )
      }
      entries.push(entry)
    }
    // Sorted and de-duplicated once, for the warning that names the allowlist.
    const sorted = [...new Set(entries)].sort()
    roles.set(role, { allows: matcherOf(entries), empty: entries.length === 0, sorted })
  }
  return roles
}

// For an allowlist that matches no tool: the tool each entry most likely meant
// (`'serach': did you mean 'search'?`, `'githb_*': did you mean 'github_*'?`).
function typoHints(sorted, names) {
  const hints = []
  for (const entry of sorted) {
    if (hints.length === 3) break
    let near
    if (entry.endsWith('*')) {
      const prefix = entry.slice(0, -1)
      const heads = new Set()
      for (const name of names) for (let d = -1; d <= 1; d++) if (prefix.length + d > 0) heads.add(name.slice(0, prefix.length + d))
      near = prefix === '' ? undefined : closest(prefix, [...heads])
      if (near !== undefined) near += '*'
    } else {
      near = closest(entry, names)
    }
    if (near !== undefined && near !== entry) hints.push(`'${entry}': did you mean '${near}'?`)
  }
  return hints.length === 0 ? '' : ` (${hints.join('; ')})`
}

// ---------------------------------------------------------------- resolver

const resolveWith = Symbol('resolveWith')
// The call a TypeError names when the package builds the resolver for the
// user (`toolPaletteMiddleware(options)`): a symbol key, so no option name.
const CALLER = Symbol('caller')

/** The default resolver: a static allowlist of tool names per role. */
class StaticPaletteResolver {
  #roles
  #logger
  #unknownRole
  #warnedEmpty = new Set()
  #warnedNoMatch = new Set()
  #warnedUnknown = new Set()

  constructor(options) {
    const where = (options !== null && typeof options === 'object' && options[CALLER]) || 'new StaticPaletteResolver(options)'
    if (options === null || typeof options !== 'object') {
      throw new TypeError(`${where}: expected options { roleTools, unknownRole?, logger? }, got ${describe(options)}`)
    }
    checkOptionKeys(where, options, ['roleTools', 'unknownRole', 'logger'])
    checkLogger(where, options.logger)
    this.#unknownRole = checkUnknownRole(where, options.unknownRole, options.roleTools)
    // Without roleTools the resolver would allow every tool: a policy that an
    // undefined slipping through would turn off is refused instead.
    if (options.roleTools === undefined || options.roleTools === null) {
      throw new TypeError(
        `${where}: roleTools is ${describe(options.roleTools)}; give a map of role names to lists of tool names, e.g. roleTools: { action: ['search'] } (['*'] for every tool)`,
      )
    }
    this.#roles = compileRoleTools(options.roleTools, where)
    this.#logger = options.logger ?? undefined
  }

  /**
   * The role's subset of `allTools` (the same objects, in input order), `null`
   * for "no policy: bind the list unchanged", or `[]` for "none but the
   * always-on and forced tools". Never throws.
   */
  resolve(state, role, allTools) {
    return this[resolveWith](role, allTools, this.#logger, this.#unknownRole)
  }

  /** The roles that have an allowlist. */
  get roles() {
    return [...this.#roles.keys()]
  }

  /** What a role without an entry gets: `'deny'` or `'allow'`. */
  get unknownRole() {
    return this.#unknownRole
  }

  /**
   * Whether `role` allows a tool named `name`: `true` / `false`, or `null` when
   * no policy applies (a role without an entry under `unknownRole: 'allow'`). A single name cannot tell whether the allowlist
   * matches *any* tool of a list; `resolve` handles that case.
   */
  allows(role, name) {
    if (typeof name !== 'string') return null
    const spec = typeof role === 'string' ? this.#roles.get(role) : undefined
    if (spec === undefined) return this.#unknownRole === 'deny' ? false : null
    return spec.allows(name)
  }

  /** Whether `role` has an entry in `roleTools`. */
  hasRole(role) {
    return typeof role === 'string' && this.#roles.has(role)
  }

  // A role without an entry: the unknownRole policy, its warning once per role.
  #unknown(role, logger, unknownRole) {
    if (unknownRole === 'allow') return null
    const roleText = typeof role === 'string' ? role : textOf(role)
    const known = [...this.#roles.keys()]
    const near = typeof role === 'string' && known.length > 0 ? closest(role, known) : undefined
    const hint = `${near !== undefined ? ` (did you mean '${near}'?)` : ''}; roles: [${known.join(', ')}]`
    warnOnce(
      this.#warnedUnknown,
      roleText,
      logger,
      `[tool_palette] role '${roleText}' has no entry in roleTools${hint}; ${DENIED}. ` +
        `Add roleTools['${roleText}'] to give it tools, or set unknownRole: 'allow' to give every role without an entry all tools`,
    )
    return []
  }

  [resolveWith](role, allTools, logger, unknownRole = this.#unknownRole) {
    if (!Array.isArray(allTools)) return null
    const spec = typeof role === 'string' ? this.#roles.get(role) : undefined
    if (spec === undefined) return this.#unknown(role, logger, unknownRole)
    if (spec.empty) {
      const fix = `List the tools it may call, or ['*'] for every tool`
      warnOnce(this.#warnedEmpty, role, logger, `[tool_palette] the allowlist for role '${role}' is empty; ${DENIED}. ${fix}`)
      return []
    }
    const out = []
    try {
      if (allTools.length === 0) return null
      for (let i = 0; i < allTools.length; i++) {
        const tool = allTools[i]
        const name = nameOf(tool)
        if (name !== undefined && spec.allows(name)) out.push(tool)
      }
      if (out.length > 0) return out
      if (!this.#warnedNoMatch.has(role)) {
        const names = allTools.map(nameOf).filter((name) => name !== undefined)
        const fix = `Fix the allowlist, or list '*' to give the role every tool`
        warnOnce(
          this.#warnedNoMatch,
          role,
          logger,
          `[tool_palette] the allowlist for role '${role}' matches none of the ${allTools.length} tools${typoHints(spec.sorted, names)}; ${DENIED}. ${fix}. Allowlist: [${spec.sorted.join(', ')}]`,
        )
      }
    } catch {
      // A tool list that cannot be read (throwing getters, proxies) allows nothing.
    }
    return []
  }
}

// ---------------------------------------------------------------- resolvePalette

// The free function compiles once per `roleTools` object, not per call.
const resolvers = new WeakMap()

async function resolvePalette(state, role, allTools, options) {
  const where = 'resolvePalette(state, role, allTools, options)'
  if (options === undefined || options === null) return null
  if (typeof options !== 'object') {
    throw new TypeError(`${where}: expected options { roleTools, unknownRole?, logger? }, got ${describe(options)}`)
  }
  checkOptionKeys(where, options, ['roleTools', 'unknownRole', 'logger'])
  checkLogger(where, options.logger)
  const unknownRole = checkUnknownRole(where, options.unknownRole, options.roleTools)
  const { roleTools } = options
  // The seed's "no policy": no roleTools, every tool.
  if (roleTools === undefined || roleTools === null) return null
  let resolver = typeof roleTools === 'object' ? resolvers.get(roleTools) : undefined
  if (resolver === undefined) {
    resolver = new StaticPaletteResolver({ roleTools, [CALLER]: where })
    resolvers.set(roleTools, resolver)
  }
  return resolver[resolveWith](role, allTools, options.logger, unknownRole)
}

module.exports = {
  ROLES,
  UNKNOWN_ROLE,
  StaticPaletteResolver,
  resolvePalette,
  nameOf,
  // shared with apply-palette.js and langchain/palette.js
  CALLER,
  DENIED,
  checkOptionKeys,
  checkUnknownRole,
  warnOnce,
  errorText,
}
