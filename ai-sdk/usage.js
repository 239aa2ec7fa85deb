'use strict'
// The usage event of each model call (docs/usage.md), from what a
// prepareStep sees: step k's prepareStep reports call k − 1, with the usage
// the SDK recorded for it (`steps[k − 1].usage`) next to the estimate of its
// request both ways. The last call of a generation has no next step, so it
// is not reported. No calibration: the messages carry no usage for the
// replay to learn from, so estimates stay at characters / 4.

const { usageTracker } = require('../lib/usage-events.js')

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

/** `after(step, answered, sent, ns, policy)`: the previous step's usage event (and cache check), never throwing. */
function stepUsage(report) {
  const tracker = usageTracker(report)
  return function after(step, answered, sent, ns, policy) {
    const steps = Array.isArray(step.steps) ? step.steps : []
    if (answered == null || steps.length === 0) return
    try {
      const prev = steps[steps.length - 1]
      const calls = Array.isArray(prev && prev.toolCalls) ? prev.toolCalls : []
      const model = prev && prev.model && typeof prev.model.modelId === 'string' ? prev.model.modelId : prev && prev.response && prev.response.modelId
      // The step's record in the shape the tracker reads (LangChain's): readUsage reads the SDK's usage fields too.
      const response = { usage_metadata: prev && prev.usage, tool_calls: calls.map((c) => ({ name: c && c.toolName })), response_metadata: { model_name: model } }
      tracker.after({ runtime: undefined, ns, policy, call: answered, sent, response, system: systemText(step), isMarked })
    } catch (err) {
      report.warn(`usage\0${err && err.message}`, `@symfonic/core: the usage report failed (${err && err.message}); the step went through`)
    }
  }
}

module.exports = { stepUsage }
