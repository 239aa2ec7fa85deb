'use strict'
// Role-aware tool palettes: the static resolver (roleTools compiled natively,
// the unknownRole policy) and resolvePalette. The caller's tool objects never
// leave JS: their names cross to the native matcher once per tool list
// (tool-list.js) and each call gets back indices into it, which is why this
// layer exists at all: resolvers must return *the same* tool objects. The
// agent loop's rules around any resolver are in apply-palette.js.

const { PaletteMatcher, ToolNameList } = require('./native.js')
const { checkKeys, closest } = require('./options.js')
const { encodeNames, listEntry } = require('./tool-list.js')

const ROLES = Object.freeze({ ACTION: 'action', DEFAULT: 'default' })
// What a role without an entry in `roleTools` gets (a typo, a custom role):
// every tool ('allow'), every tool and a warning ('warn'), or none but the
// always-on and forced tools ('deny').
const UNKNOWN_ROLE = Object.freeze(['allow', 'warn', 'deny'])
const DEFAULT_UNKNOWN_ROLE = 'warn'

// The palettes a StaticPaletteResolver denied (a role without an entry under
// unknownRole 'deny'): an empty list that applyPalette must honour, where an
// empty list from any other resolver is a misconfiguration it abstains from.
const denials = new WeakSet()

function denial() {
  const out = []
  denials.add(out)
  return out
}

/** Whether `palette` is a deliberate "no tools" from a StaticPaletteResolver. */
function isDenial(palette) {
  return Array.isArray(palette) && denials.has(palette)
}

// ---------------------------------------------------------------- helpers

function describe(value) {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (value instanceof Map) return 'a Map'
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`
}

function checkUnknownRole(where, unknownRole, roleTools) {
  if (unknownRole === undefined) return DEFAULT_UNKNOWN_ROLE
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

function checkLogger(logger, where) {
  if (logger === undefined || logger === null) return
  if (typeof logger !== 'object' && typeof logger !== 'function') {
    throw new TypeError(`${where}: logger must be an object with a warn(message) method, got ${describe(logger)}`)
  }
  if (typeof logger.warn !== 'function') {
    throw new TypeError(`${where}: logger must have a warn(message) method`)
  }
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

function errorText(error) {
  if (error instanceof Error) return error.message
  try {
    return String(error)
  } catch {
    return 'unprintable error'
  }
}

// Compiles `roleTools` into a role map plus the arguments of the native
// matcher. Throws TypeError for anything malformed: that is a programmer
// error, and the only place where palette code throws.
function compileRoleTools(roleTools, where) {
  const roles = new Map()
  if (roleTools === undefined || roleTools === null) return { roles, lists: [] }
  if (typeof roleTools !== 'object' || Array.isArray(roleTools) || roleTools instanceof Map) {
    throw new TypeError(
      `${where}: roleTools must be a plain object mapping role names to lists of tool names, got ${describe(roleTools)}`,
    )
  }
  const lists = []
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
    roles.set(role, { index: lists.length, empty: entries.length === 0, sorted })
    lists.push(entries)
  }
  return { roles, lists }
}

// ---------------------------------------------------------------- resolver

const resolveWith = Symbol('resolveWith')

/**
 * The default resolver: a static allowlist of tool names per role, compiled
 * once (natively) when the resolver is built.
 */
class StaticPaletteResolver {
  #roles
  #configured
  #matcher
  #logger
  #unknownRole
  #warnedEmpty = new Set()
  #warnedNoMatch = new Set()
  #warnedUnknown = new Set()

  constructor(options) {
    const where = 'new StaticPaletteResolver(options)'
    if (options === null || typeof options !== 'object') {
      throw new TypeError(`${where}: expected options { roleTools, unknownRole?, logger? }, got ${describe(options)}`)
    }
    checkKeys(where, options, ['roleTools', 'unknownRole', 'logger'])
    checkLogger(options.logger, where)
    this.#unknownRole = checkUnknownRole(where, options.unknownRole, options.roleTools)
    const { roles, lists } = compileRoleTools(options.roleTools, where)
    this.#roles = roles
    this.#configured = options.roleTools !== undefined && options.roleTools !== null
    this.#matcher = new PaletteMatcher(lists)
    this.#logger = options.logger ?? undefined
  }

  /**
   * The role's subset of `allTools` (the same objects, in input order), or
   * `null` for "no policy: bind the list unchanged", or `[]` for a role
   * without an entry under `unknownRole: 'deny'`. Never throws.
   */
  resolve(state, role, allTools) {
    return this[resolveWith](role, allTools, this.#logger, this.#unknownRole)
  }

  /** The roles that have an allowlist. */
  get roles() {
    return [...this.#roles.keys()]
  }

  /** What a role without an entry gets: `'allow'`, `'warn'` or `'deny'`. */
  get unknownRole() {
    return this.#unknownRole
  }

  /**
   * Whether `role` allows a tool named `name`: `true` / `false`, or `null`
   * when the role has no usable policy (an empty allowlist, or no entry
   * under `unknownRole` 'allow' or 'warn'; under 'deny' a role without an
   * entry allows nothing). A single name cannot tell whether the allowlist
   * matches *any* tool of a list; `resolve` handles that case.
   */
  allows(role, name) {
    if (typeof name !== 'string') return null
    const spec = typeof role === 'string' ? this.#roles.get(role) : undefined
    if (spec === undefined) return this.#configured && this.#unknownRole === 'deny' ? false : null
    if (spec.empty) return null
    const names = new ToolNameList(encodeNames([name]))
    return this.#matcher.selectInto(spec.index, names, new Uint32Array(1)) === 1
  }

  /** Whether `role` has an entry in `roleTools`. */
  hasRole(role) {
    return typeof role === 'string' && this.#roles.has(role)
  }

  // A role without an entry: the unknownRole policy, its warning once per role.
  #unknown(role, logger, unknownRole) {
    if (!this.#configured || unknownRole === 'allow') return null
    const roleText = typeof role === 'string' ? role : String(role)
    const known = [...this.#roles.keys()]
    const near = typeof role === 'string' && known.length > 0 ? closest(role, known) : undefined
    const hint = `${near !== undefined ? ` (did you mean '${near}'?)` : ''}; roles: [${known.join(', ')}]`
    const fix = unknownRole === 'deny'
      ? `binding only the always-on and forced tools (unknownRole: 'deny'). Add roleTools['${roleText}'] to give it tools`
      : `binding all tools. Add roleTools['${roleText}'], or set unknownRole: 'deny' to bind none, or 'allow' to bind all without this warning`
    warnOnce(this.#warnedUnknown, roleText, logger, `[tool_palette] role '${roleText}' has no entry in roleTools${hint}; ${fix}`)
    return unknownRole === 'deny' ? denial() : null
  }

  [resolveWith](role, allTools, logger, unknownRole = this.#unknownRole) {
    try {
      if (!Array.isArray(allTools)) return null
      const spec = typeof role === 'string' ? this.#roles.get(role) : undefined
      if (spec === undefined) return this.#unknown(role, logger, unknownRole)
      if (spec.empty) {
        warnOnce(
          this.#warnedEmpty,
          role,
          logger,
          `[tool_palette] the allowlist for role '${role}' is empty: an empty palette is a configuration error; binding all tools`,
        )
        return null
      }
      if (allTools.length === 0) return null
      const entry = listEntry(allTools)
      const count = this.#matcher.selectInto(spec.index, entry.nativeList(), entry.out)
      if (count === 0) {
        warnOnce(
          this.#warnedNoMatch,
          role,
          logger,
          `[tool_palette] the allowlist for role '${role}' matches none of the ${allTools.length} tools; binding all tools. Allowlist: [${spec.sorted.join(', ')}]`,
        )
        return null
      }
      const out = entry.out
      const tools = entry.tools
      const result = new Array(count)
      for (let i = 0; i < count; i++) result[i] = tools[out[i]]
      return result
    } catch {
      // A hostile tool list (throwing getters, proxies) means no policy.
      return null
    }
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
  checkKeys(where, options, ['roleTools', 'unknownRole', 'logger'])
  checkLogger(options.logger, where)
  const unknownRole = checkUnknownRole(where, options.unknownRole, options.roleTools)
  const { roleTools } = options
  if (roleTools === undefined || roleTools === null) return null
  let resolver = typeof roleTools === 'object' ? resolvers.get(roleTools) : undefined
  if (resolver === undefined) {
    resolver = new StaticPaletteResolver({ roleTools })
    resolvers.set(roleTools, resolver)
  }
  return resolver[resolveWith](role, allTools, options.logger, unknownRole)
}

module.exports = {
  ROLES,
  UNKNOWN_ROLE,
  StaticPaletteResolver,
  resolvePalette,
  isDenial,
  // shared with apply-palette.js and langchain/palette.js
  describe,
  checkLogger,
  checkUnknownRole,
  warn,
  warnOnce,
  errorText,
}
