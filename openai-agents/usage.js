'use strict'
// The usage event of each model call (docs/usage.md) in the Agents SDK. The
// filter is shown the run's own context, not the SDK's RunContext with its
// `usage`: the agent's own events are (a tool starting, a handoff, the
// agent's end follow each model response), so the filter keeps its estimate
// of the call it prepared, and the first such event after the response
// reports it with the usage the run added since. Pairing is per run context
// object: concurrent runs of one agent need distinct `context`s.

const { usageTracker } = require('../lib/usage-events.js')

const NO_CONTEXT = {}
// A cache mark of compact.js: Anthropic's, in the item's providerData.
const isMarked = (item) => !!(item && item.providerData && item.providerData.anthropic && item.providerData.anthropic.cacheControl)

// The usage of one request: the run's newest per-request entry, or null when the model reported none.
function lastRequest(usage, seen) {
  const entries = usage && Array.isArray(usage.requestUsageEntries) ? usage.requestUsageEntries : []
  return entries.length > seen ? entries[entries.length - 1] : null
}

function agentUsage(report) {
  const tracker = usageTracker(report)
  const pending = new WeakMap() // run context (the user's) -> the call the filter prepared
  const entriesSeen = new WeakMap() // RunContext -> per-request usage entries reported
  const watched = new WeakSet()
  const answered = (rc) => {
    const key = (rc && rc.context) ?? NO_CONTEXT
    const p = pending.get(key)
    if (p === undefined) return
    pending.delete(key)
    try {
      const seen = entriesSeen.get(rc) ?? 0
      const entry = lastRequest(rc.usage, seen)
      if (entry !== null) entriesSeen.set(rc, rc.usage.requestUsageEntries.length)
      const response = { usage_metadata: entry, tool_calls: [], response_metadata: { model_name: p.model } }
      tracker.after({ runtime: undefined, ns: p.ns, policy: p.policy, call: p.call, sent: p.sent, response, system: p.system, isMarked })
    } catch (err) {
      report.warn(`usage\0${err && err.message}`, `@symfonic/core: the usage report failed (${err && err.message}); the run went through`)
    }
  }
  return {
    /** Before a call: keep its estimate for the agent's next event, watching the agent once. */
    before({ agent, context, call, ns, policy, sent, system }) {
      if (call == null || agent == null || typeof agent.on !== 'function') return
      if (!watched.has(agent)) {
        watched.add(agent)
        for (const e of ['agent_tool_start', 'agent_handoff', 'agent_end']) agent.on(e, answered)
      }
      const model = typeof agent.model === 'string' ? agent.model : null
      pending.set(context ?? NO_CONTEXT, { call, ns, policy, sent, system, model })
    },
  }
}

module.exports = { agentUsage }
