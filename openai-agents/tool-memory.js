'use strict'
// `toolMemory(options)`: tool-result memory for the OpenAI Agents SDK. Its
// `callModelInputFilter` shows the model each old or oversized tool result
// as a stub (the core decides which, core/); its `recall_tool_result` tool
// reads one back. The SDK is loaded when toolMemory() is called, so the
// package loads without it.

const { Ledger, MAX_OUTPUT_CHARS } = require('../index.js')
const { resolveOptions, COMPACT_KEYS, RECALL_TOOL_NAME, cachedCacheModelFor } = require('../core/index.js')
const { refillFromCache } = require('../core/record-cache.js')
const { optionsObject, checkLedger, isNamespace, NAMESPACE_TEXT, fail } = require('../lib/options.js')
const { z } = require('zod/v4')
const { answerRecall, RECALL_DESCRIPTION, RECALL_SCHEMA } = require('../lib/recall-call.js')
// Warnings once per logger, events through onEvent: the reporter has no LangChain in it.
const { reporter } = require('../lib/report.js')
const { compactItems } = require('./compact.js')
const { agentUsage, usageTotals } = require('./usage.js')

const FN = 'toolMemory(options)'
const KEYS = [...COMPACT_KEYS, 'ledger', 'store', 'recallMaxChars']

// The recall tool's arguments as the LangChain and AI SDK tools declare them
// (lib/recall-call.js): seven untyped properties, `mem_id` required, the
// model-facing definition every request carries kept as short as theirs.
// Not strict, which would need every argument typed, required and nullable
// (docs/openai-agents.md); the tool answers any value a model sends.
// (As plain JSON: the SDK takes an object with zod's Standard Schema marker for a zod schema.)
const RECALL_PARAMETERS = JSON.parse(JSON.stringify(z.toJSONSchema(RECALL_SCHEMA)))

function loadSdk() {
  try {
    return require('@openai/agents')
  } catch (e) {
    if (e && e.code === 'MODULE_NOT_FOUND' && /@openai\/agents/.test(e.message)) {
      throw new Error(`${FN} needs the OpenAI Agents SDK: npm install @openai/agents`)
    }
    throw e
  }
}

/** The recall tool, made with the SDK's `tool()`, answering with `execute`. */
const recallToolWith = (tool, execute) => tool({ name: RECALL_TOOL_NAME, description: RECALL_DESCRIPTION, parameters: RECALL_PARAMETERS, strict: false, execute })

// Characters of a tool's definition as the model receives it, per tool object.
const sizes = new WeakMap()
function toolChars(t) {
  if (t === null || typeof t !== 'object') return 0
  let s = sizes.get(t)
  if (s === undefined) {
    try {
      s = JSON.stringify({ type: t.type, name: t.name, description: t.description, parameters: t.parameters, strict: t.strict }).length
    } catch {
      s = 0
    }
    sizes.set(t, s)
  }
  return s
}

/** The namespace of a run: the option, a string or a function of the run's context. */
function namespaceOf(namespace) {
  if (typeof namespace === 'function') {
    return (context) => {
      const ns = namespace(context)
      return ns == null ? '' : String(ns)
    }
  }
  const ns = namespace == null ? '' : String(namespace)
  return () => ns
}

/**
 * `{ tools: [recall_tool_result], callModelInputFilter }` for an Agent and
 * its run (docs/openai-agents.md).
 */
function toolMemory(options) {
  const o = optionsObject(FN, options, KEYS)
  if (o.ledger != null && o.store != null) throw new TypeError(`${FN}: pass ledger or store, not both (store: the ledger's store, as new Ledger({ store }) takes it)`)
  if (o.ledger != null) checkLedger(FN, o.ledger, ['record', 'fetch', 'handle', 'stub'])
  if (o.namespace != null && typeof o.namespace !== 'function' && !isNamespace(o.namespace)) {
    throw fail(FN, `namespace must be ${NAMESPACE_TEXT} or a function of the run's context`, o.namespace)
  }
  if (o.recallMaxChars != null && (!Number.isSafeInteger(o.recallMaxChars) || o.recallMaxChars < 1)) {
    throw fail(FN, 'recallMaxChars must be a whole number of characters, at least 1', o.recallMaxChars)
  }
  const maxOutputChars = o.recallMaxChars ?? MAX_OUTPUT_CHARS
  const compactOptions = { ...o }
  for (const k of ['ledger', 'store', 'namespace', 'recallMaxChars']) delete compactOptions[k]
  if (o.cacheModel != null) resolveOptions({ cacheModel: o.cacheModel }, FN)
  const policies = {
    breakpoint: resolveOptions({ ...compactOptions, cacheModel: 'breakpoint' }, FN),
    prefix: resolveOptions({ ...compactOptions, cacheModel: 'prefix' }, FN),
  }
  const ledger = o.ledger ?? (o.store != null ? new Ledger({ store: o.store }) : new Ledger())
  const report = reporter(policies.prefix.logger, policies.prefix.onEvent)
  const nsOf = namespaceOf(o.namespace)
  const { tool } = loadSdk()

  const recallTool = recallToolWith(tool, (input, runContext) =>
      answerRecall(ledger, input, {
        nsOf: () => nsOf(runContext ? runContext.context : undefined),
        refill: (memId, ns) => refillFromCache(ledger, ns, memId),
        maxOutputChars,
        report,
      }),
  )
  const recallChars = toolChars(recallTool)
  const usage = agentUsage(report)

  const callModelInputFilter = async ({ modelData, agent, context }) => {
    const items = modelData && Array.isArray(modelData.input) ? modelData.input : null
    if (items === null) return modelData
    try {
      const policy = policies[o.cacheModel ?? cachedCacheModelFor(agent ? agent.model : undefined)]
      let others = 0
      let recall = 0
      for (const t of (agent && Array.isArray(agent.tools) ? agent.tools : [])) {
        if (t === recallTool) recall = recallChars
        else others += toolChars(t)
      }
      const env = { toolChars: others, systemChars: typeof modelData.instructions === 'string' ? modelData.instructions.length : 0, recallToolChars: recall }
      const ns = nsOf(context)
      const { input, call } = await compactItems(items, ledger, policy, ns, env, report, usage.usageAt(ns))
      usage.before({ agent, context, items, call, ns, policy, sent: input, system: typeof modelData.instructions === 'string' ? modelData.instructions : '' })
      return input === items ? modelData : { ...modelData, input }
    } catch (err) {
      // Never fail a model call over compaction: the model gets the input as it was.
      report.warn(`filter\0${err && err.message}`, `@symfonic/core: ${FN} left the model input as it was (${err && err.message})`)
      return modelData
    }
  }
  // The SDK passes the items themselves (not deep copies) to a filter that
  // treats them as immutable, as this one does: the core resumes its replay.
  callModelInputFilter.preserveInputIdentity = true

  return { tools: [recallTool], callModelInputFilter, ledger }
}

// The recall tool's definition as the filter prices it (the SDK's tool(), made once).
let recallDefinitionChars
const recallCharsOf = () => (recallDefinitionChars ??= toolChars(recallToolWith(loadSdk().tool, () => '')))

/** A conversation's totals (docs/usage.md): `usage.js` `usageTotals`, with toolMemory()'s options and the filter's sizes. */
const totalsOf = (items, options) => usageTotals(items, options, KEYS, toolChars, recallCharsOf)

module.exports = { toolMemory, usageTotals: totalsOf }
