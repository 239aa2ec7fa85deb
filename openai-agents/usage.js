'use strict'
// What each model call cost (docs/usage.md) in the Agents SDK. The filter
// sees the run's own context, not the SDK's RunContext with its `usage`; the
// agent's events do (a tool starting, a handoff, the agent's end follow each
// model response), so the filter keeps its estimate of the call it prepared,
// and the first such event after the response reports it with the usage the
// run added since. Each call is paired with its run by the items it sends:
// a run's model responses (the tool calls its events name) and the input it
// started with are its own, whatever context other runs share. A call whose
// run cannot be told apart (two runs at once, before either has called a
// tool, on an agent not yet watched when they started) is reported without
// usage rather than with another run's. The usage is also kept by call
// index, so the core's replay learns the calibration factor from it.
// `usageTotals` adds a conversation up from its items and the run's Usage.

const { readUsage, resolveOptions, cacheModelFor, totals, carryUsage, RECALL_TOOL_NAME } = require('../core/index.js')
const { usageTracker } = require('../lib/usage-events.js')
const { optionsObject, fail } = require('../lib/options.js')
const { plainMessages } = require('./items.js')

const NO_CONTEXT = {}
const AMBIGUOUS = {} // an item two runs started with
// Bounds: namespaces whose call usage is kept, and calls waiting for a run per context.
const NAMESPACES_LIMIT = 10000
const LOOSE_LIMIT = 64
// A cache mark of compact.js: Anthropic's, in the item's providerData.
const isMarked = (item) => !!(item && item.providerData && item.providerData.anthropic && item.providerData.anthropic.cacheControl)

// The per-request usage entries of a Usage (the SDK keeps one per model response that reported usage).
const entriesOf = (usage) => (usage && Array.isArray(usage.requestUsageEntries) ? usage.requestUsageEntries : [])

function agentUsage(report) {
  const tracker = usageTracker(report)
  const runOf = new WeakMap() // item -> the RunContext it belongs to (AMBIGUOUS: two runs')
  const pending = new WeakMap() // RunContext -> the call the filter prepared for it
  const loose = new Map() // the user's context (or NO_CONTEXT) -> calls whose run is not known yet
  const entriesSeen = new WeakMap() // RunContext -> per-request usage entries reported
  const usages = new Map() // namespace -> call index -> { usage, model }
  const watched = new WeakSet()
  const reportedRuns = new WeakSet() // runs with a call reported: their later events are the same response's, or paired

  const remember = (item, rc) => {
    if (item === null || typeof item !== 'object') return
    const was = runOf.get(item)
    runOf.set(item, was === undefined || was === rc ? rc : AMBIGUOUS)
  }
  // The run of a model input: its newest item a run's event named.
  const runFor = (items) => {
    for (let i = items.length - 1; i >= 0; i--) {
      const it = items[i]
      const rc = it !== null && typeof it === 'object' ? runOf.get(it) : undefined
      if (rc === AMBIGUOUS) return undefined
      if (rc !== undefined) return rc
    }
    return undefined
  }
  const keep = (ns, k, u) => {
    let byCall = usages.get(ns)
    usages.delete(ns)
    if (byCall === undefined) byCall = []
    usages.set(ns, byCall)
    if (usages.size > NAMESPACES_LIMIT) usages.delete(usages.keys().next().value)
    byCall[k] = u
  }

  // After a model response of the run `rc`: the call it answered, reported once.
  const answered = (rc) => {
    let p = pending.get(rc)
    let paired = true
    if (p !== undefined) pending.delete(rc)
    else {
      // A run's first call made before its run could be told (no item of it known yet).
      if (reportedRuns.has(rc)) return
      const key = (rc && rc.context) ?? NO_CONTEXT
      const list = loose.get(key)
      if (list === undefined) return
      p = list.shift()
      if (list.length === 0) loose.delete(key)
      paired = !list.ambiguous
    }
    if (rc !== null && typeof rc === 'object') reportedRuns.add(rc)
    try {
      const entries = entriesOf(rc && rc.usage)
      const seen = entriesSeen.get(rc) ?? 0
      const entry = entries.length > seen ? entries[entries.length - 1] : null
      entriesSeen.set(rc, entries.length)
      const reported = paired ? entry : null
      if (paired) keep(p.ns, p.call.index, { usage: readUsage(entry), model: p.model ?? '' })
      const response = { usage_metadata: reported, tool_calls: [], response_metadata: { model_name: p.model } }
      tracker.after({ runtime: undefined, ns: p.ns, policy: p.policy, call: p.call, sent: p.sent, response, system: p.system, isMarked })
    } catch (err) {
      report.warn(`usage\0${err && err.message}`, `@symfonic/core: the usage report failed (${err && err.message}); the run went through`)
    }
  }
  const watch = (agent) => {
    if (watched.has(agent)) return
    watched.add(agent)
    agent.on('agent_start', (rc, _agent, turnInput) => {
      if (Array.isArray(turnInput)) for (const it of turnInput) remember(it, rc)
    })
    agent.on('agent_tool_start', (rc, _tool, details) => {
      remember(details && details.toolCall, rc)
      answered(rc)
    })
    for (const e of ['agent_handoff', 'agent_end']) agent.on(e, answered)
  }
  return {
    /** The usage each call of namespace `ns` reported, by call index (for the plan: core/usage.js `carryUsage`). */
    usageAt(ns) {
      const byCall = usages.get(ns)
      return byCall === undefined ? () => undefined : (k) => byCall[k]
    },
    /** Before a call: keep its estimate for its run's next event, watching the agent once. */
    before({ agent, context, items, call, ns, policy, sent, system }) {
      if (call == null || agent == null || typeof agent.on !== 'function') return
      watch(agent)
      const p = { call, ns, policy, sent, system, model: typeof agent.model === 'string' ? agent.model : null }
      const rc = runFor(items)
      if (rc !== undefined) {
        pending.set(rc, p)
        return
      }
      const key = context ?? NO_CONTEXT
      let list = loose.get(key)
      if (list === undefined) loose.set(key, (list = []))
      else if (list.length > 0) list.ambiguous = true
      list.push(p)
      if (list.length > LOOSE_LIMIT) list.shift()
    },
  }
}

const FN = 'usageTotals(items, options)'

// Per-request usage records, in order, from a Usage, a list of them (one per run), or the records themselves.
function requestRecords(usage) {
  if (usage == null) return []
  if (!Array.isArray(usage)) {
    if (typeof usage !== 'object') throw fail(FN, "usage must be the run's Usage (result.state.usage), a list of them, or its requestUsageEntries", usage)
    return entriesOf(usage)
  }
  return usage.flatMap((u) => (u && Array.isArray(u.requestUsageEntries) ? u.requestUsageEntries : [u]))
}

/**
 * The totals of a conversation from its items (the run's history, or a
 * session's items) and `usage`, the run's Usage (its per-request entries
 * pair with the model responses in order): model calls, results compacted,
 * recalls, the estimate with and without compaction, the reported usage,
 * the saving. `options`: toolMemory()'s, plus `usage`, `tools` (the agent's),
 * `instructions` and `model`; `keys`: toolMemory()'s option names;
 * `toolChars(tool)` and `recallChars()`: the sizes the filter prices.
 */
function usageTotals(items, options, keys, toolChars, recallChars) {
  if (!Array.isArray(items)) throw new TypeError(`${FN}: items must be an array of AgentInputItem (the run's history)`)
  const o = optionsObject(FN, options, [...keys, 'usage', 'tools', 'instructions', 'model'])
  if (o.tools != null && !Array.isArray(o.tools)) throw fail(FN, "tools must be the agent's tools (agent.tools)", o.tools)
  if (o.instructions != null && typeof o.instructions !== 'string') throw fail(FN, "instructions must be the agent's instructions, a string", o.instructions)
  const records = requestRecords(o.usage).map((r) => ({ usage: readUsage(r), model: '' }))
  const policyOptions = {}
  for (const k of keys) if (o[k] !== undefined && !['ledger', 'store', 'namespace', 'recallMaxChars'].includes(k)) policyOptions[k] = o[k]
  policyOptions.cacheModel = o.cacheModel ?? cacheModelFor(o.model)
  const policy = resolveOptions(policyOptions, FN, keys)
  let others = 0
  for (const t of o.tools ?? []) if (!(t && t.name === RECALL_TOOL_NAME)) others += toolChars(t)
  const env = { toolChars: others, systemChars: (o.instructions ?? '').length, recallToolChars: recallChars() }
  let plain
  try {
    plain = plainMessages(items).plain
  } catch (e) {
    throw new TypeError(`${FN}: an item could not be read (${e && e.message})`)
  }
  return totals(carryUsage(plain, (k) => records[k]), policy, env)
}

module.exports = { agentUsage, usageTotals }
