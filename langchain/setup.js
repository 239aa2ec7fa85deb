'use strict'
// What the middleware and the hook share: their options checked once, the
// ledger, the namespace, the recall tool, and both cache models' policies.

const { Ledger, MAX_OUTPUT_CHARS } = require('../index.js')
const { resolveOptions, TOOL_MEMORY_KEYS } = require('../core/index.js')
const { optionsObject, checkLedger, checkBoolean, checkNamespace } = require('../lib/options.js')
const { storeOf } = require('../lib/ledger.js')
const { reporter } = require('../lib/report.js')
const { recallTool: makeRecallTool, checkCap } = require('./recall-tool.js')
const { namespaceResolver } = require('./namespace.js')

/**
 * The ledger, the namespace, the recall tool, and both cache models'
 * policies, resolved (and validated) up front; the model picks one per call.
 * `fn` names the caller in TypeErrors.
 */
function setup(options, fn) {
  const o = optionsObject(fn, options, TOOL_MEMORY_KEYS)
  // Every method compaction and the recall tool will call.
  if (o.ledger != null) checkLedger(fn, o.ledger, ['record', 'fetch', 'handle', 'stub'])
  checkNamespace(fn, o.namespace)
  if (o.offload !== undefined) checkBoolean(fn, 'offload', o.offload)
  if (o.recallMaxChars != null) checkCap(fn, 'recallMaxChars', o.recallMaxChars)
  // Offload takes payloads out of the state: only a ledger with a store may hold them then.
  if (o.offload === true && storeOf(o.ledger) === null) {
    throw new TypeError(`${fn}: offload needs a ledger with a store (ledger: new Ledger({ store: 'sqlite:./ledger.db' })); in memory only, a restart would lose the offloaded results`)
  }
  const compactOptions = { ...o }
  delete compactOptions.ledger
  delete compactOptions.namespace
  delete compactOptions.offload
  delete compactOptions.recallMaxChars
  if (o.cacheModel != null) resolveOptions({ cacheModel: o.cacheModel }, fn)
  const policies = {
    breakpoint: resolveOptions({ ...compactOptions, cacheModel: 'breakpoint' }, fn),
    prefix: resolveOptions({ ...compactOptions, cacheModel: 'prefix' }, fn),
  }
  const ledger = o.ledger ?? new Ledger()
  const report = reporter(policies.prefix.logger, policies.prefix.onEvent)
  // The default namespace is the run's thread id; a run without one is warned once.
  const nsOf = namespaceResolver(o.namespace, o.namespace == null ? { fn, report } : undefined)
  const recallTool = makeRecallTool(ledger, nsOf, o.recallMaxChars ?? MAX_OUTPUT_CHARS, report)
  return { o, ledger, nsOf, policies, recallTool, report }
}

module.exports = { setup }
