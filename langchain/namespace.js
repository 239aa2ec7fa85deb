'use strict'
// The namespace a run's results are recorded in and recalled from: the
// `namespace` option (a string, or a function of the run config), else the
// run's thread id. `configurable.thread_id` is read here and nowhere else.

/** The run's thread id (`config.configurable.thread_id`), or undefined. */
const threadIdOf = (config) => (config && config.configurable ? config.configurable.thread_id : undefined)

/**
 * `nsOf(config)`: the namespace of a run under the `namespace` option. Under
 * the default rule (the thread id), given `warnAs` ({ fn, report }), a run
 * without one is warned once: every such run then shares the namespace ''.
 */
function namespaceResolver(namespace, warnAs) {
  if (typeof namespace === 'function') {
    return (config) => {
      const ns = namespace(config ?? {})
      return ns == null ? '' : String(ns)
    }
  }
  if (namespace != null) {
    const ns = String(namespace)
    return () => ns
  }
  return (config) => {
    const id = threadIdOf(config)
    if (warnAs !== undefined && (id == null || id === '')) {
      const { fn, report } = warnAs
      report.warn(
        `noThread\0${fn}`,
        `${fn}: a run without configurable.thread_id records its results in the shared namespace '' (every such run can recall the others'); ` +
          `pass { configurable: { thread_id } } to invoke, or set the namespace option (a string or a function of the run config)`,
      )
    }
    return id == null ? '' : String(id)
  }
}

module.exports = { threadIdOf, namespaceResolver }
