'use strict'
// Role-aware tool palettes. The caller's tool objects never leave JS: their
// names cross to the native matcher once per tool list (one string, compared
// there UTF-16 unit for unit; the list is remembered in a WeakMap), and each call gets back indices into it.
// That is why this layer exists at all: resolvers must return *the same* tool
// objects.

const { PaletteMatcher, ToolNameList } = require('./native.js')
const { checkKeys, closest } = require('./options.js')

const ROLES = Object.freeze({ ACTION: 'action', DEFAULT: 'default' })
const DEFAULT_ALWAYS_INCLUDE = Object.freeze(['recall_tool_result'])
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

function nameOf(tool) {
  if (tool === null || (typeof tool !== 'object' && typeof tool !== 'function')) return undefined
  const name = tool.name
  return typeof name === 'string' ? name : undefined
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

// ---------------------------------------------------------------- tool lists

// What is known about one tool list, computed once per list: names cross the
// boundary only when a list is new or has changed. The cache is keyed on the
// array and re-validated on every call (same length, same objects, same
// names), because arrays and tools are mutable.
class ListEntry {
  constructor(tools, names) {
    this.tools = tools // a snapshot: the caller's array may change later
    this.names = names
    this.native = undefined // ToolNameList, made on first use
    this.out = undefined // Uint32Array the native side writes indices into
    this.byName = undefined // { first: Map name -> index of its first tool, named: count }
    this.unique = undefined // no tool listed twice, no name used twice
  }

  // Shares what depends on the names only, from an entry with the same names.
  adoptNames(other) {
    this.native = other.native
    this.out = other.out
    this.byName = other.byName
  }

  nativeList() {
    if (this.native === undefined) {
      this.native = new ToolNameList(encodeNames(this.names))
      this.out = new Uint32Array(this.tools.length)
    }
    return this.native
  }

  firstIndex(name) {
    return this.#byName().first.get(name)
  }

  isUnique() {
    if (this.unique === undefined) {
      const { first, named } = this.#byName()
      // Distinct names for every tool imply distinct objects.
      this.unique = named === this.tools.length ? first.size === named : new Set(this.tools).size === this.tools.length && first.size === named
    }
    return this.unique
  }

  #byName() {
    if (this.byName === undefined) {
      const first = new Map()
      let named = 0
      for (let i = 0; i < this.names.length; i++) {
        const name = this.names[i]
        if (name === undefined) continue
        named++
        if (!first.has(name)) first.set(name, i)
      }
      this.byName = { first, named }
    }
    return this.byName
  }
}

// The wire format of ToolNameList: `+name` per named tool, `-` otherwise,
// joined by `\0` (no provider accepts it in a name), as one string. The native
// side reads its UTF-16 units as they are: UTF-8 would turn a lone surrogate
// into U+FFFD, and `x\uDFFF_admin` would then admit a tool named `x\uD800_admin`.
function encodeNames(names) {
  let wire = ''
  for (let i = 0; i < names.length; i++) {
    const name = names[i]
    const segment = name === undefined || name.includes('\0') ? '-' : '+' + name
    wire = i === 0 ? segment : wire + '\0' + segment
  }
  return wire
}

const listEntries = new WeakMap()
// The entry made last: a new array holding the same names (`[...tools]` on
// every call, say) reuses its native list instead of sending the names again.
// Held weakly: it must not keep a dropped tool list alive.
let lastEntry

function sameNames(a, b) {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

function listEntry(tools) {
  const n = tools.length
  const cached = listEntries.get(tools)
  if (cached !== undefined && cached.tools.length === n) {
    const sameTools = cached.tools
    const sameNames = cached.names
    let i = 0
    while (i < n) {
      const tool = tools[i]
      if (tool !== sameTools[i] || nameOf(tool) !== sameNames[i]) break
      i++
    }
    if (i === n) return cached
  }
  const snapshot = new Array(n)
  const names = new Array(n)
  for (let i = 0; i < n; i++) {
    const tool = tools[i]
    snapshot[i] = tool
    names[i] = nameOf(tool)
  }
  const entry = new ListEntry(snapshot, names)
  const last = lastEntry?.deref()
  if (last !== undefined && sameNames(last.names, names)) entry.adoptNames(last)
  lastEntry = new WeakRef(entry)
  listEntries.set(tools, entry)
  return entry
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

// ---------------------------------------------------------------- applyPalette

// "Once per (forced tool, role)" is remembered per resolver, or per logger
// when there is no resolver.
const forcedWarnings = new WeakMap()

function forcedScope(resolver, logger) {
  const isKey = (v) => (v !== null && typeof v === 'object') || typeof v === 'function'
  const key = isKey(resolver) ? resolver : isKey(logger) ? logger : console
  let seen = forcedWarnings.get(key)
  if (seen === undefined) {
    seen = new Set()
    forcedWarnings.set(key, seen)
  }
  return seen
}

// Names only: the palette binds the instances of the tool list, so a tool
// object here would suggest that this object is bound, which it is not when
// the list holds another one of that name.
function checkAlwaysInclude(alwaysInclude, where = 'applyPalette(input)') {
  if (alwaysInclude === undefined || alwaysInclude === null) return DEFAULT_ALWAYS_INCLUDE
  if (!Array.isArray(alwaysInclude)) {
    throw new TypeError(`${where}: alwaysInclude must be an array of tool names, got ${describe(alwaysInclude)}`)
  }
  const i = alwaysInclude.findIndex((n) => typeof n !== 'string')
  if (i !== -1) {
    const name = nameOf(alwaysInclude[i])
    throw new TypeError(
      name !== undefined
        ? `${where}: alwaysInclude must be an array of tool names, got a tool object at [${i}]; pass its name: alwaysInclude: [${JSON.stringify(name)}]`
        : `${where}: alwaysInclude must be an array of tool names, got ${describe(alwaysInclude[i])} at [${i}]`,
    )
  }
  return alwaysInclude
}

// Whether `sub` is `list` with some elements left out, order kept.
function isOrderedSubset(sub, list) {
  let j = 0
  for (let i = 0; i < sub.length; i++) {
    const tool = sub[i]
    while (j < list.length && list[j] !== tool) j++
    if (j === list.length) return false
    j++
  }
  return true
}

// The result being built: tools plus a by-name membership test. The common
// case (the palette is an ordered subset of a list without duplicates) is a
// slice, membership is answered from the list's name index, and the few
// appended tools are tracked on the side; anything else uses explicit sets.
class Selection {
  constructor(entry, tools, fast) {
    this.entry = entry
    this.tools = tools
    this.fast = fast
    this.names = new Set() // fast: names appended; slow: every name
    this.objects = fast ? undefined : new Set()
    this.lookups = 0
  }

  // `palette` must hold tools of `entry` in its order (`ordered`, if known).
  static of(entry, palette, ordered = palette === entry.tools || isOrderedSubset(palette, entry.tools)) {
    if (ordered && entry.isUnique()) {
      return new Selection(entry, palette.slice(), true)
    }
    const selection = new Selection(entry, [], false)
    for (const tool of palette) selection.add(tool)
    return selection
  }

  // Whether `tool` is selected. The first few lookups scan the list (a call
  // usually asks about one or two always-on tools); past that a set of the
  // selected objects is built once, so many names stay linear overall.
  includes(tool) {
    if (this.objects !== undefined) return this.objects.has(tool)
    if (++this.lookups <= 8) return this.tools.includes(tool)
    this.objects = new Set(this.tools)
    return this.objects.has(tool)
  }

  hasName(name) {
    if (this.names.has(name)) return true
    if (!this.fast) return false
    const i = this.entry.firstIndex(name)
    return i !== undefined && this.includes(this.entry.tools[i])
  }

  add(tool) {
    const name = nameOf(tool)
    if (name !== undefined && this.hasName(name)) return
    if (this.includes(tool)) return
    if (name !== undefined) this.names.add(name)
    if (this.objects !== undefined) this.objects.add(tool)
    this.tools.push(tool)
  }
}

function findByName(entries, name) {
  for (const entry of entries) {
    const i = entry.firstIndex(name)
    if (i !== undefined) return entry.tools[i]
  }
  return undefined
}

async function applyPaletteIn(input, forcedSeen) {
  if (input === null || typeof input !== 'object') {
    throw new TypeError(`applyPalette(input): expected an input object, got ${describe(input)}`)
  }
  checkKeys('applyPalette(input)', input, ['state', 'role', 'allTools', 'resolvedTools', 'resolver', 'forcedToolChoice', 'alwaysInclude', 'logger'])
  const { state, role, resolvedTools, resolver, forcedToolChoice, logger } = input
  checkLogger(logger, 'applyPalette(input)')
  const alwaysInclude = checkAlwaysInclude(input.alwaysInclude)
  const allTools = Array.isArray(input.allTools) ? input.allTools : []
  const roleText = typeof role === 'string' ? role : String(role)

  // 1. intent narrowing first, when it narrowed to something.
  const start = Array.isArray(resolvedTools) && resolvedTools.length > 0 ? resolvedTools : allTools

  // 2./3. the palette: null means "no filter".
  let palette = null
  if (resolver !== undefined && resolver !== null) {
    try {
      if (typeof resolver.resolve !== 'function') throw new TypeError('the resolver has no resolve() method')
      palette = await resolver.resolve(state, role, start)
    } catch (error) {
      warn(logger, `[tool_palette] the palette resolver failed for role '${roleText}' (${errorText(error)}); binding the unfiltered tools`)
      palette = null
    }
    if (palette !== null && palette !== undefined && !Array.isArray(palette)) {
      warn(logger, `[tool_palette] the palette resolver returned ${describe(palette)} for role '${roleText}', expected a list of tools or null; binding the unfiltered tools`)
      palette = null
    } else if (Array.isArray(palette) && palette.length === 0 && !isDenial(palette)) {
      warn(logger, `[tool_palette] the palette resolver returned no tools for role '${roleText}'; an empty palette would brick the agent, binding the unfiltered tools`)
      palette = null
    } else if (palette === undefined) {
      palette = null
    }
  }

  // Validated after the resolver ran: it may have been awaited.
  const startEntry = listEntry(start)
  const allEntry = start === allTools ? startEntry : listEntry(allTools)
  let selection
  if (palette === null) {
    selection = Selection.of(startEntry, startEntry.tools)
  } else {
    // A subset of `start`, in `start` order: the resolver constrains the
    // choice, it never authors tools, so anything else it returned is dropped.
    selection = isOrderedSubset(palette, startEntry.tools)
      ? Selection.of(startEntry, palette, true)
      : Selection.of(startEntry, inStartOrder(palette, startEntry.tools), false)
    if (selection.tools.length === 0 && !isDenial(palette)) {
      warn(logger, `[tool_palette] the palette resolver for role '${roleText}' returned tools that are not in the tool list; binding the unfiltered tools`)
      selection = Selection.of(startEntry, startEntry.tools)
    }
  }

  // 4. the forced tool choice wins over the palette.
  let toolChoice
  let forcedAdded = false
  if (typeof forcedToolChoice === 'string' && forcedToolChoice !== '') {
    if (selection.hasName(forcedToolChoice)) {
      toolChoice = forcedToolChoice
    } else {
      const forced = findByName([startEntry, allEntry], forcedToolChoice)
      if (forced !== undefined) {
        selection.add(forced)
        toolChoice = forcedToolChoice
        forcedAdded = true
        warnOnce(
          forcedSeen,
          `${forcedToolChoice}\0${roleText}`,
          logger,
          `[tool_palette] forced tool choice '${forcedToolChoice}' is outside the palette for role '${roleText}'; binding it anyway (the forced choice wins)`,
        )
      } else {
        warnOnce(
          forcedSeen,
          `${forcedToolChoice}\0${roleText}\0missing`,
          logger,
          `[tool_palette] forced tool choice '${forcedToolChoice}' names no tool in the list; not forcing it`,
        )
      }
    }
  }

  // 5. always-on tools come after the palette, so narrowing cannot drop them;
  // appended in allTools order.
  const always = []
  for (const name of alwaysInclude) {
    const i = allEntry.firstIndex(name)
    if (i !== undefined && !selection.hasName(name)) always.push(i)
  }
  always.sort((a, b) => a - b)
  for (const i of always) selection.add(allEntry.tools[i])

  return { tools: selection.tools, toolChoice, forcedAdded }
}

// The tools of `list` that are in `palette`, in `list` order.
function inStartOrder(palette, list) {
  const chosen = new Set(palette)
  return list.filter((tool) => chosen.has(tool))
}

async function applyPalette(input) {
  try {
    const scope = input !== null && typeof input === 'object' ? forcedScope(input.resolver, input.logger) : new Set()
    const { tools, toolChoice } = await applyPaletteIn(input, scope)
    return { tools, toolChoice }
  } catch (e) {
    // An input whose getters throw (or a Proxy) is a programmer's input: say so.
    if (e instanceof TypeError) throw e
    throw new TypeError(`applyPalette(input): the input could not be read (${e && e.message})`)
  }
}

module.exports = {
  ROLES,
  DEFAULT_ALWAYS_INCLUDE,
  UNKNOWN_ROLE,
  StaticPaletteResolver,
  resolvePalette,
  applyPalette,
  // for langchain/palette.js: applyPalette with the caller's own warn-once
  // scope, and the option checks it shares
  applyPaletteIn,
  checkAlwaysInclude,
  checkLogger,
  checkUnknownRole,
}
