'use strict'
// What each model call cost (docs/usage.md), from what a prepareStep sees:
// step k's prepareStep has the usage the SDK recorded for call k − 1
// (`steps[k − 1].usage`). It is kept by call index, so the core's replay
// learns the calibration factor from it (core/usage.js `carryUsage`), and
// reported in a usage event next to the estimate of that call's request
// both ways. The last call of a generation has no next step, so it is
// neither reported nor learned from. `usageTotals` adds a conversation up.

const { readUsage, resolveOptions, cacheModelFor, totals, carryUsage, RECALL_TOOL_NAME } = require('../core/index.js')
const { RECALL_SCHEMA, RECALL_DESCRIPTION } = require('../lib/recall-call.js')
const { usageTracker } = require('../lib/usage-events.js')
const { optionsObject, fail } = require('../lib/options.js')
const { plainOf } = require('./messages.js')
const { toolChars, toolSetChars, instructionsChars } = require('./request-size.js')

// Anthropic's cache mark as the SDK carries it: on the message or one of its parts.
const hasAnthropicMark = (o) => o != null && o.providerOptions != null && o.providerOptions.anthropic != null && o.providerOptions.anthropic.cacheControl != null
const isMarked = (m) => hasAnthropicMark(m) || (m != null && Array.isArray(m.content) && m.content.some(hasAnthropicMark))

function systemText(step) {
  const i = step.instructions ?? step.system
  if (i == null) return ''
  try {
    return typeof i === 'string' ? i : JSON.stringify(i)
  } catch {
    return ''
  }
}

const modelOf = (s) => (s && s.model && typeof s.model.modelId === 'string' ? s.model.modelId : s && s.response && typeof s.response.modelId === 'string' ? s.response.modelId : '')

/**
 * The usage side of one toolMemory(): `learn(step)` keeps the previous
 * step's usage under its call index (before the plan), `usageAt(k)` hands it
 * to the plan, `after(step, answered, sent, ns, policy)` reports that call
 * (and checks the cache), never throwing.
 */
function stepUsage(report) {
  const tracker = usageTracker(report)
  const usages = [] // call index -> { usage, model }
  return {
    usageAt: (k) => usages[k],
    learn(step, messages) {
      const steps = Array.isArray(step.steps) ? step.steps : []
      if (steps.length === 0) return
      try {
        let k = -1
        for (const m of messages) if (m != null && m.role === 'assistant') k++
        const prev = steps[steps.length - 1]
        if (k >= 0 && usages[k] === undefined) usages[k] = { usage: readUsage(prev && prev.usage), model: modelOf(prev) }
      } catch {
        // a step whose getters throw reports nothing
      }
    },
    after(step, answered, sent, ns, policy) {
      const steps = Array.isArray(step.steps) ? step.steps : []
      if (answered == null || steps.length === 0) return
      try {
        const prev = steps[steps.length - 1]
        const calls = Array.isArray(prev && prev.toolCalls) ? prev.toolCalls : []
        // The step's record in the shape the tracker reads (LangChain's): readUsage reads the SDK's usage fields too.
        const response = { usage_metadata: prev && prev.usage, tool_calls: calls.map((c) => ({ name: c && c.toolName })), response_metadata: { model_name: modelOf(prev) || null } }
        tracker.after({ runtime: undefined, ns, policy, call: answered, sent, response, system: systemText(step), isMarked })
      } catch (err) {
        report.warn(`usage\0${err && err.message}`, `@symfonic/core: the usage report failed (${err && err.message}); the step went through`)
      }
    },
  }
}

const FN = 'usageTotals(messages, options)'

/**
 * The totals of a conversation from its messages (`ModelMessage[]`, as the
 * app keeps them) and `usage`, the usage each model call reported, in order
 * (each step's `usage`, across generations): model calls, results compacted,
 * recalls, the estimate with and without compaction, the reported usage, the
 * saving. `options`: toolMemory()'s, plus `usage`, `instructions` and `model`;
 * `keys`: toolMemory()'s option names.
 */
function usageTotals(messages, options, keys) {
  if (!Array.isArray(messages)) throw new TypeError(`${FN}: messages must be an array of ModelMessage (the conversation as you keep it)`)
  const o = optionsObject(FN, options, [...keys, 'usage', 'instructions', 'model'])
  if (o.usage != null && !Array.isArray(o.usage)) throw fail(FN, "usage must be an array of each model call's usage, in order (each step's `usage`)", o.usage)
  if (o.tools != null && (typeof o.tools !== 'object' || Array.isArray(o.tools))) throw fail(FN, 'tools must be your tool set, an object { name: tool } as you pass it to the SDK', o.tools)
  const policyOptions = {}
  for (const k of keys) if (o[k] !== undefined && !['ledger', 'store', 'namespace', 'recallMaxChars', 'tools'].includes(k)) policyOptions[k] = o[k]
  policyOptions.cacheModel = o.cacheModel ?? cacheModelFor(o.model)
  const policy = resolveOptions(policyOptions, FN, keys)
  const count = policy.countTokens
  const env = {
    toolChars: o.tools == null ? 0 : toolSetChars(o.tools, RECALL_TOOL_NAME, count),
    systemChars: instructionsChars({ instructions: o.instructions }, count),
    // The recall tool's definition does not depend on its cap here (recall-tool.js).
    recallToolChars: toolChars(RECALL_TOOL_NAME, { description: RECALL_DESCRIPTION, inputSchema: RECALL_SCHEMA }, count),
  }
  const records = (o.usage ?? []).map((u) => ({ usage: readUsage(u), model: '' }))
  const ours = new WeakSet()
  const plain = []
  try {
    for (const m of messages) if (m !== null && typeof m === 'object') plain.push(...plainOf(m, ours, count))
  } catch (e) {
    throw new TypeError(`${FN}: a message could not be read (${e && e.message})`)
  }
  return totals(carryUsage(plain, (k) => records[k]), policy, env)
}

module.exports = { stepUsage, usageTotals }
