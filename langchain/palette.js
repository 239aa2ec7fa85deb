'use strict'
// toolPaletteMiddleware: role-aware tool palettes for langchain's createAgent.
// wrapModelCall narrows what is bound; wrapToolCall (the guard) stops what is
// not bound from running anyway, because the agent's tool node holds every
// registered tool and runs whatever the model names.

// `langchain` is an optional peer: it is loaded when a middleware is made,
// so `@symfonic/core/langchain` itself loads without it.
const { AIMessage, ToolMessage } = require('@langchain/core/messages')
const { ROLES, StaticPaletteResolver, CALLER, DENIED, checkOptionKeys, checkUnknownRole, nameOf, warnOnce } = require('../lib/palette.js')
const { applyPaletteIn, checkAlwaysInclude } = require('../lib/apply-palette.js')
const { checkCallback, checkLogger, describe, isThenable } = require('../lib/options.js')
const { reporter } = require('../lib/report.js')
const { threadIdOf } = require('./namespace.js')

const NAME = 'toolPaletteMiddleware'
// How TypeErrors name the call.
const FN = 'toolPaletteMiddleware(options)'
// Palettes remembered per tool call id, so the guard judges a call against
// the palette that was bound when the model made it.
const SNAPSHOT_LIMIT = 1024

// The role of a palette whose role function returned no role name, as the
// refusals and events name it.
const NO_ROLE = '(no role)'
// The palette of such a role: nothing but the always-on and forced tools.
const DENY_ALL = Object.freeze({ resolve: () => [] })

const KEYS = ['roleTools', 'unknownRole', 'resolver', 'role', 'forcedToolChoice', 'alwaysInclude', 'guard', 'logger', 'onEvent']

// The one way to say what the palette is; without it the middleware would
// bind and run every tool, so a missing or undefined policy is refused.
const NEEDS_POLICY =
  "pass roleTools (role names to lists of tool names, e.g. roleTools: { action: ['search'] }) or resolver (a ToolPaletteResolver); " +
  "with neither, every tool would be bound and run. For every tool, say so: roleTools: { action: ['*'] }"

function validate(options) {
  if (options === undefined) throw new TypeError(`${FN}: no options; ${NEEDS_POLICY}`)
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`${FN}: expected an options object, got ${describe(options)}`)
  }
  checkOptionKeys(FN, options, KEYS)
  const { roleTools, resolver, role, forcedToolChoice, guard } = options
  if (roleTools != null && resolver != null) {
    throw new TypeError(`${FN}: pass either roleTools or resolver, not both`)
  }
  if (resolver != null && typeof resolver.resolve !== 'function') {
    throw new TypeError(`${FN}: resolver must have a resolve(state, role, allTools) method`)
  }
  if (options.unknownRole !== undefined && resolver != null) {
    throw new TypeError(`${FN}: unknownRole applies to roleTools; a custom resolver decides for itself what a role without a policy gets (null: every tool)`)
  }
  checkUnknownRole(FN, options.unknownRole, roleTools)
  if (role !== undefined && typeof role !== 'string' && typeof role !== 'function') {
    // `role: { action: [...] }` is a roleTools map in the wrong option.
    const map = role !== null && typeof role === 'object' && !Array.isArray(role) ? '; a map of role names to tool names is roleTools' : ''
    throw new TypeError(`${FN}: role must be a string or a function (state, runtime) => string${map}`)
  }
  if (forcedToolChoice != null && typeof forcedToolChoice !== 'string' && typeof forcedToolChoice !== 'function') {
    throw new TypeError(`${FN}: forcedToolChoice must be a tool name or a function (state, runtime) => string | undefined`)
  }
  if (guard !== undefined && typeof guard !== 'boolean') {
    throw new TypeError(`${FN}: guard must be a boolean`)
  }
  checkLogger(FN, options.logger)
  checkCallback(FN, 'onEvent', options.onEvent)
  const alwaysInclude = checkAlwaysInclude(options.alwaysInclude, FN)
  if (roleTools == null && resolver == null) {
    const given = ['roleTools', 'resolver'].filter((k) => Object.hasOwn(options, k))
    const what = given.length === 0 ? 'no roleTools and no resolver' : given.map((k) => `${k} is ${describe(options[k])}`).join(' and ')
    throw new TypeError(`${FN}: ${what}; ${NEEDS_POLICY}`)
  }
  return alwaysInclude
}

// The original releases a forced choice once the conversation holds a
// ToolMessage from that tool; match by name or by the id of a call to it.
function isReleased(messages, forced) {
  if (!Array.isArray(messages)) return false
  const callIds = new Set()
  for (const m of messages) {
    if (AIMessage.isInstance(m)) {
      for (const call of m.tool_calls ?? []) if (call.name === forced && call.id) callIds.add(call.id)
    }
  }
  return messages.some((m) => ToolMessage.isInstance(m) && (m.name === forced || callIds.has(m.tool_call_id)))
}

// LangGraph's own test for interrupts and other control-flow errors
// (`isGraphBubbleUp`), without loading LangGraph for it.
function isGraphBubbleUp(error) {
  return error !== undefined && error !== null && error.is_bubble_up === true
}

// What LangChain's tool node does with a tool error when no wrapToolCall is
// present; adding a wrapToolCall turns that off, so the guard does it itself.
function toolErrorMessage(error, request, { MiddlewareError, ToolInvocationError }) {
  if (isGraphBubbleUp(error)) throw error // interrupts and other control flow
  if (request.runtime?.signal?.aborted) throw error
  let root = error
  while (MiddlewareError.isInstance(root) && root.cause !== undefined) root = root.cause
  // An inner middleware's own failure stays fatal, as it is without the guard.
  if (MiddlewareError.isInstance(error) && !ToolInvocationError.isInstance(root)) throw error
  const call = request.toolCall
  return new ToolMessage({
    content: ToolInvocationError.isInstance(root) ? root.message : `${root}\n Please fix your mistakes.`,
    tool_call_id: call.id ?? '',
    name: call.name,
    status: 'error',
  })
}

function refusal(call, role, available) {
  const list = available === null ? 'unknown in this process' : `[${available.join(', ')}]`
  return new ToolMessage({
    content: `[tool_palette: '${call.name}' is not in the tool palette for role '${role}'; it was not run. Available tools: ${list}]`,
    tool_call_id: call.id ?? '',
    name: call.name,
    status: 'error',
  })
}

function toolPaletteMiddleware(options) {
  const alwaysInclude = validate(options)
  const langchain = require('langchain')
  const { roleTools, unknownRole, role = ROLES.ACTION, forcedToolChoice, guard = true, logger, onEvent } = options
  const report = reporter(logger, onEvent)
  const own = roleTools != null ? new StaticPaletteResolver({ roleTools, unknownRole, logger, [CALLER]: FN }) : null
  const resolver = options.resolver ?? own
  const forcedWarnings = new Set()
  const roleWarnings = new Set()
  const unknownReported = new Set()
  const snapshots = new Map()
  // Per thread: the tools and palette of its latest model call. Never shared
  // across threads: a call in one thread is not judged by another's palette.
  const lastByThread = new Map()
  const threadOf = (runtime) => String(threadIdOf(runtime) ?? '')

  // The role name, or null when the role function returned none: that fails
  // closed, said once per kind of mistake (not as an unknown role named
  // '[object Promise]').
  function roleOf(state, runtime) {
    if (typeof role !== 'function') return role
    const r = role(state, runtime)
    if (typeof r === 'string') return r
    let what = `returned ${describe(r)}, not a role name`
    if (isThenable(r)) {
      what = 'returned a Promise; role must be synchronous (look the role up before invoke and read it from runtime.context)'
      try {
        r.then(undefined, () => {}) // its rejection is not the app's to handle
      } catch {
        // a thenable whose then throws: nothing to silence
      }
    }
    warnOnce(roleWarnings, what, logger, `[tool_palette] the role function ${what}; ${DENIED}`)
    return null
  }

  function forcedOf(state, runtime, messages) {
    const forced = typeof forcedToolChoice === 'function' ? forcedToolChoice(state, runtime) : forcedToolChoice
    if (typeof forced !== 'string' || forced === '') return undefined
    return isReleased(messages, forced) ? undefined : forced
  }

  async function paletteFor(state, runtime, tools, messages) {
    const r = roleOf(state, runtime)
    const forced = forcedOf(state, runtime, messages)
    const input = { state, role: r ?? NO_ROLE, allTools: tools, resolver: r === null ? DENY_ALL : resolver, forcedToolChoice: forced, alwaysInclude, logger }
    const { tools: bound, toolChoice, forcedAdded } = await applyPaletteIn(input, forcedWarnings)
    return { role: r ?? NO_ROLE, known: r !== null, bound, toolChoice, forced: forcedAdded ? forced : undefined }
  }

  // A palette as the guard reads it; the sets are built on first use.
  function snapshotOf(tools, p) {
    let sets
    return {
      role: p.role,
      sets: () => {
        if (sets === undefined) {
          const available = p.bound.map(nameOf).filter((n) => n !== undefined)
          const bound = new Set(available)
          const hidden = new Set(tools.map(nameOf).filter((n) => n !== undefined && !bound.has(n)))
          sets = { available, hidden }
        }
        return sets
      },
    }
  }

  // Tool-call ids are unique per provider response, not across threads
  // (some local models number them from 0), hence the thread in the key.
  const snapshotKey = (runtime, id) => `${threadIdOf(runtime) ?? ''}\0${id}`

  function rememberThread(runtime, tools, p) {
    const key = threadOf(runtime)
    lastByThread.delete(key)
    lastByThread.set(key, { tools, snapshot: snapshotOf(tools, p) })
    if (lastByThread.size > SNAPSHOT_LIMIT) lastByThread.delete(lastByThread.keys().next().value)
  }

  // Remembers, per tool call, the palette bound for the model call that made
  // it. The sets are built on first use: most model calls are judged never
  // or once.
  function remember(response, runtime, tools, p) {
    if (!AIMessage.isInstance(response) || !response.tool_calls?.length) return
    const snapshot = snapshotOf(tools, p)
    for (const call of response.tool_calls) {
      if (!call.id) continue
      const key = snapshotKey(runtime, call.id)
      snapshots.delete(key)
      snapshots.set(key, snapshot)
      if (snapshots.size > SNAPSHOT_LIMIT) snapshots.delete(snapshots.keys().next().value)
    }
  }

  // The verdict on one tool call: null to run it, else what to tell the model.
  async function judge(request) {
    const call = request.toolCall
    const snapshot = call.id ? snapshots.get(snapshotKey(request.runtime, call.id)) : undefined
    if (snapshot !== undefined) {
      const { hidden, available } = snapshot.sets()
      return hidden.has(call.name) ? { role: snapshot.role, available } : null
    }
    const last = lastByThread.get(threadOf(request.runtime))
    if (!call.id) {
      // A call without an id cannot be matched to the model call that made it:
      // it may run only if this thread's latest palette had the tool.
      if (last === undefined) return { role: roleOf(request.state, request.runtime) ?? NO_ROLE, available: null }
      const { available } = last.snapshot.sets()
      return available.includes(call.name) ? null : { role: last.snapshot.role, available }
    }
    // The call was made before this process saw a model call (e.g. a resumed
    // thread): judge it against the palette for the current state.
    const messages = request.state?.messages
    const lastTools = last === undefined ? null : last.tools
    if (lastTools === null && resolver instanceof StaticPaletteResolver) {
      const r = roleOf(request.state, request.runtime)
      if (alwaysInclude.includes(call.name) || forcedOf(request.state, request.runtime, messages) === call.name) return null
      if (r === null) return { role: NO_ROLE, available: null }
      return resolver.allows(r, call.name) === false ? { role: r, available: null } : null
    }
    const tools = lastTools ?? (request.tool ? [request.tool] : [])
    const p = await paletteFor(request.state, request.runtime, tools, messages)
    const bound = p.bound.map(nameOf)
    const known = tools.some((t) => nameOf(t) === call.name)
    return known && !bound.includes(call.name) ? { role: p.role, available: bound.filter((n) => n !== undefined) } : null
  }

  return langchain.createMiddleware({
    name: NAME,
    wrapModelCall: async (request, handler) => {
      const all = Array.isArray(request.tools) ? request.tools : []
      // Provider-side tools without a name (`{ type: 'web_search_preview' }`)
      // cannot be listed in an allowlist and never reach the tool node: they
      // are bound as they are. The common all-named list is passed as is, so
      // its names stay cached.
      const tools = all.every((t) => nameOf(t) !== undefined) ? all : all.filter((t) => nameOf(t) !== undefined)
      const p = await paletteFor(request.state, request.runtime, tools, request.state?.messages ?? request.messages)
      if (guard) rememberThread(request.runtime, tools, p)
      const unnamed = tools === all ? [] : all.filter((t) => nameOf(t) === undefined)
      const next = { ...request, tools: unnamed.length === 0 ? p.bound : [...p.bound, ...unnamed] }
      // LangChain's providers turn a tool name into their forced-choice format.
      if (p.toolChoice !== undefined) next.toolChoice = p.toolChoice
      // A role without an entry in roleTools: under 'deny' the resolver warned
      // through the logger; onEvent hears of it once per role, whatever the policy.
      if (own !== null && p.known && !own.hasRole(p.role) && !unknownReported.has(String(p.role))) {
        unknownReported.add(String(p.role))
        report.event({ type: 'unknownRole', role: String(p.role), policy: own.unknownRole, roles: own.roles })
      }
      if (onEvent !== undefined) {
        const bound = new Set(p.bound)
        const hidden = tools.filter((t) => !bound.has(t)).map(nameOf)
        if (hidden.length > 0) report.event({ type: 'toolsHidden', role: p.role, hidden, bound: p.bound.length })
        if (p.forced !== undefined) report.event({ type: 'forcedToolAdded', role: p.role, tool: p.forced })
      }
      const response = await handler(next)
      if (guard) remember(response, request.runtime, tools, p)
      return response
    },
    wrapToolCall: guard
      ? async (request, handler) => {
          const verdict = await judge(request)
          if (verdict !== null) {
            report.event({ type: 'toolCallRefused', role: verdict.role, tool: request.toolCall.name, toolCallId: request.toolCall.id ?? '' })
            return refusal(request.toolCall, verdict.role, verdict.available)
          }
          try {
            return await handler(request)
          } catch (error) {
            return toolErrorMessage(error, request, langchain)
          }
        }
      : undefined,
  })
}

module.exports = { toolPaletteMiddleware }
