'use strict'
// The agent loop's palette rules around any resolver (applyPalette): intent
// narrowing first, the resolver's palette, a forced tool appended back, the
// always-on tools after the palette, input order kept and no duplicates.

const { checkKeys } = require('./options.js')
const { describe, checkLogger, warn, warnOnce, errorText, isDenial, nameOf } = require('./palette.js')

const DEFAULT_ALWAYS_INCLUDE = Object.freeze(['recall_tool_result'])

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
    if (selection.tools.length === 0 && !isDenial(palette)) {
      warn(logger, `[tool_palette] the palette resolver for role '${roleText}' returned tools that are not in the tool list; binding the unfiltered tools`)
      selection.addAll(start)
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
