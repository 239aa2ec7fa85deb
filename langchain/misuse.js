'use strict'
// Mistakes that LangChain would otherwise run silently: a factory passed
// without calling it, the createAgent middleware and the createReactAgent
// hook swapped, and the hook's recall tool left out of the agent's tools.
// Each gets a TypeError at construction, or one warning naming the fix (runs
// without a thread id are warned by namespace.js).

const HOOK_AS_MIDDLEWARE =
  'toolMemoryPreModelHook() is a createReactAgent preModelHook, not a createAgent middleware (as middleware it would do nothing); ' +
  'in createAgent use middleware: [toolMemoryMiddleware()]'

const MIDDLEWARE_AS_HOOK =
  'toolMemoryMiddleware() is a createAgent middleware, not a preModelHook; ' +
  'for createReactAgent use const hook = toolMemoryPreModelHook(), then createReactAgent({ llm, tools: [...tools, hook.tool], preModelHook: hook })'

function thrower(message) {
  return {
    get() {
      throw new TypeError(message)
    },
    enumerable: false,
    configurable: true,
  }
}

// What each factory export makes, and the call to make instead of passing it.
const FACTORY_CALLS = {
  toolMemoryMiddleware: ['middleware', 'createAgent({ model, tools, middleware: [toolMemoryMiddleware()] })'],
  toolPaletteMiddleware: ['middleware', 'createAgent({ model, tools, middleware: [toolPaletteMiddleware({ roleTools, role })] })'],
  toolMemoryPreModelHook: ['preModelHook', 'const hook = toolMemoryPreModelHook(); createReactAgent({ llm, tools: [...tools, hook.tool], preModelHook: hook })'],
  createRecallToolResultTool: ['tool', 'tools: [...tools, createRecallToolResultTool(ledger)]'],
}

// What createAgent reads of each middleware (`tools` first, as it builds the
// graph), and what createAgent, createReactAgent and LangGraph's addNode read
// of each tool and node (`lc_runnable`): one of them is read at construction
// wherever the uncalled factory was put.
const READ_AT_CONSTRUCTION = ['tools', 'stateSchema', 'contextSchema', 'beforeAgent', 'beforeModel', 'afterModel', 'afterAgent', 'wrapModelCall', 'wrapToolCall', 'lc_runnable']

/**
 * A factory passed where its result belongs (`middleware: [toolMemoryMiddleware]`)
 * would be skipped without a word, its guard included: every property the
 * agent reads while it is built throws a TypeError naming the call to make.
 */
function refuseUncalled(factory) {
  const [what, call] = FACTORY_CALLS[factory.name]
  const message = `${factory.name} was passed without being called: it makes a ${what}, it is not one; call it: ${call}`
  for (const key of READ_AT_CONSTRUCTION) Object.defineProperty(factory, key, thrower(message))
  return factory
}

/**
 * createAgent reads `beforeModel` of every middleware while it builds the
 * graph: on the hook, that read throws, so `createAgent({ middleware: [hook] })`
 * fails at once instead of running without memory.
 */
function refuseAsMiddleware(hook) {
  Object.defineProperty(hook, 'beforeModel', thrower(HOOK_AS_MIDDLEWARE))
  return hook
}

/**
 * LangGraph's addNode asks every node whether it is a Runnable
 * (`lc_runnable`) before coercing it: on the middleware, that read throws, so
 * `createReactAgent({ preModelHook: middleware })` fails with this message
 * instead of "Expected a Runnable, function or object".
 */
function refuseAsHook(middleware) {
  Object.defineProperty(middleware, 'lc_runnable', thrower(MIDDLEWARE_AS_HOOK))
  return middleware
}

/**
 * Calls `onRegistered` the first time something looks the tool up as a tool:
 * createReactAgent and createAgent read `lc_runnable` of every tool they are
 * given when they are built, a model's bindTools and a ToolNode read `name`.
 * A recall tool nobody ever looked up is not in the agent's tools.
 */
function watchRegistration(tool, onRegistered) {
  let registered = false
  const mark = () => {
    if (!registered) {
      registered = true
      onRegistered()
    }
  }
  for (const key of ['lc_runnable', 'name']) {
    let value = tool[key]
    Object.defineProperty(tool, key, {
      get() {
        mark()
        return value
      },
      set(v) {
        value = v
      },
      enumerable: Object.prototype.propertyIsEnumerable.call(tool, key),
      configurable: true,
    })
  }
  return () => registered
}

module.exports = { refuseUncalled, refuseAsMiddleware, refuseAsHook, watchRegistration, HOOK_AS_MIDDLEWARE, MIDDLEWARE_AS_HOOK }
