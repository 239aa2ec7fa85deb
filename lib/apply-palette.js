'use strict'
// The agent loop's palette rules around any resolver (applyPalette): intent
// narrowing first, the resolver's palette, a forced tool appended back, the
// always-on tools after the palette, input order kept and no duplicates.

const { checkKeys, checkLogger, describe } = require('./options.js')
const { DENIED, warnOnce, errorText, nameOf } = require('./palette.js')

const DEFAULT_ALWAYS_INCLUDE = Object.freeze(['recall_tool_result'])

// "Once per (forced tool, role)" and "once per (failure, role)" are
// remembered per resolver, or per logger when there is no resolver.
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

// The result being built: tools in order, no name twice (nor an unnamed tool).
class Selection {
  tools = []
  #names = new Set()
  #unnamed = new Set()

  hasName(name) {
    return this.#names.has(name)
  }

  add(tool) {
    const name = nameOf(tool)
    const seen = name === undefined ? this.#unnamed : this.#names
    const key = name ?? tool
    if (seen.has(key)) return
    seen.add(key)
    this.tools.push(tool)
  }

  addAll(tools) {
    for (let i = 0; i < tools.length; i++) this.add(tools[i])
  }
}

// Whether `sub` is `list` with some elements left out, order kept (what a
// StaticPaletteResolver returns).
function isOrderedSubset(sub, list) {
  let j = 0
  for (let i = 0; i < sub.length; i++) {
    while (j < list.length && list[j] !== sub[i]) j++
    if (j++ === list.length) return false
  }
  return true
}

const findByName = (tools, name) => tools.find((tool) => nameOf(tool) === name)

// How a resolver that failed is told, once per resolver, role and kind of
// failure: the role gets no tools but the always-on and forced ones.
function failed(seen, logger, kind, roleText, what, fix) {
  warnOnce(seen, `\0failed\0${kind}\0${roleText}`, logger, `[tool_palette] the palette resolver for role '${roleText}' ${what}; ${DENIED}. ${fix}`)
  return []
}

async function applyPaletteIn(input, seen) {
  if (input === null || typeof input !== 'object') {
    throw new TypeError(`applyPalette(input): expected an input object, got ${describe(input)}`)
  }
  checkKeys('applyPalette(input)', input, ['state', 'role', 'allTools', 'resolvedTools', 'resolver', 'forcedToolChoice', 'alwaysInclude', 'logger'])
  const { state, role, resolvedTools, resolver, forcedToolChoice, logger } = input
  checkLogger('applyPalette(input)', logger)
  // No palette must be said (resolver: null): a resolver left undefined by
  // mistake would otherwise bind every tool.
  if (resolver === undefined) {
    throw new TypeError(
      `applyPalette(input): resolver is undefined; pass a ToolPaletteResolver (e.g. new StaticPaletteResolver({ roleTools })), or resolver: null for no palette (every tool)`,
    )
  }
  if (resolver !== null && ((typeof resolver !== 'object' && typeof resolver !== 'function') || typeof resolver.resolve !== 'function')) {
    throw new TypeError(`applyPalette(input): resolver must have a resolve(state, role, allTools) method, or be null for no palette (got ${describe(resolver)})`)
  }
  const alwaysInclude = checkAlwaysInclude(input.alwaysInclude)
  const allTools = Array.isArray(input.allTools) ? input.allTools : []
  const roleText = typeof role === 'string' ? role : String(role)

  // 1. intent narrowing first, when it narrowed to something.
  const start = Array.isArray(resolvedTools) && resolvedTools.length > 0 ? resolvedTools : allTools

  // 2./3. the palette: null means "no filter", [] "no tools". A resolver that
  // fails closes the palette: a security control must not open on an error.
  let palette = null
  if (resolver !== null) {
    const fix = 'Return tools of allTools, [] for none, or null for every tool'
    try {
      palette = await resolver.resolve(state, role, start)
    } catch (error) {
      palette = failed(seen, logger, 'threw', roleText, `failed (${errorText(error)})`, `Fix the resolver, or catch the error in it and return null to bind every tool`)
    }
    if (palette === undefined) {
      palette = failed(seen, logger, 'undefined', roleText, 'returned undefined (a missing return?)', fix)
    } else if (palette !== null && !Array.isArray(palette)) {
      palette = failed(seen, logger, 'type', roleText, `returned ${describe(palette)}, not a list of tools`, fix)
    }
  }

  // The lists are read after the resolver ran: it may have been awaited.
  const selection = new Selection()
  if (palette === null) {
    selection.addAll(start)
  } else {
    // A subset of `start`, in `start` order: the resolver constrains the
    // choice, it never authors tools, so anything else it returned is dropped.
    if (isOrderedSubset(palette, start)) {
      selection.addAll(palette)
    } else {
      const chosen = new Set(palette)
      selection.addAll(start.filter((tool) => chosen.has(tool)))
    }
    if (selection.tools.length === 0 && palette.length > 0) {
      failed(seen, logger, 'unknown', roleText, `returned ${palette.length} tools, none of them in the tool list`, 'Return the tool objects of allTools themselves, not copies')
    }
  }

  // 4. the forced tool choice wins over the palette.
  let toolChoice
  let forcedAdded = false
  if (typeof forcedToolChoice === 'string' && forcedToolChoice !== '') {
    if (selection.hasName(forcedToolChoice)) {
      toolChoice = forcedToolChoice
    } else {
      const forced = findByName(start, forcedToolChoice) ?? findByName(allTools, forcedToolChoice)
      if (forced !== undefined) {
        selection.add(forced)
        toolChoice = forcedToolChoice
        forcedAdded = true
        warnOnce(
          seen,
          `${forcedToolChoice}\0${roleText}`,
          logger,
          `[tool_palette] forced tool choice '${forcedToolChoice}' is outside the palette for role '${roleText}'; binding it anyway (the forced choice wins)`,
        )
      } else {
        warnOnce(
          seen,
          `${forcedToolChoice}\0${roleText}\0missing`,
          logger,
          `[tool_palette] forced tool choice '${forcedToolChoice}' names no tool in the list; not forcing it`,
        )
      }
    }
  }

  // 5. always-on tools come after the palette, so narrowing cannot drop them;
  // appended in allTools order.
  const always = new Set(alwaysInclude.filter((name) => !selection.hasName(name)))
  for (let i = 0; i < allTools.length && always.size > 0; i++) {
    const name = nameOf(allTools[i])
    if (always.delete(name)) selection.add(allTools[i])
  }

  return { tools: selection.tools, toolChoice, forcedAdded }
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

module.exports = { DEFAULT_ALWAYS_INCLUDE, applyPalette, applyPaletteIn, checkAlwaysInclude }
