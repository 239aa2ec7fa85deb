'use strict'
// Mistakes that LangChain would otherwise run silently: the createAgent
// middleware and the createReactAgent hook swapped, the hook's recall tool
// left out of the agent's tools, and runs without a thread id sharing one
// namespace. Each gets a TypeError at construction, or one warning naming the fix.

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

/**
 * The namespace of a run under the default rule (its `configurable.thread_id`),
 * warning once when a run has none: every such run then shares the namespace ''.
 */
function threadNamespace(nsOf, fn, report) {
  return (config) => {
    const id = config && config.configurable ? config.configurable.thread_id : undefined
    if (id == null || id === '') {
      report.warn(
        `noThread\0${fn}`,
        `${fn}: a run without configurable.thread_id records its results in the shared namespace '' (every such run can recall the others'); ` +
          `pass { configurable: { thread_id } } to invoke, or set the namespace option (a string or a function of the run config)`,
      )
    }
    return nsOf(config)
  }
}

module.exports = { refuseAsMiddleware, refuseAsHook, watchRegistration, threadNamespace, HOOK_AS_MIDDLEWARE, MIDDLEWARE_AS_HOOK }
