'use strict'
// `plan`: what to compact in a conversation for the call about to be made.
// A pure function of the plain messages, the resolved options and the sizes
// beside the messages; no ledger, no I/O. The replay of a list is kept and
// resumed when the next call's list extends it (the same message objects),
// so a call costs only its new messages; any other list is replayed from its
// start.

const { Replay } = require('./replay.js')
const { NO_ENV } = require('./conversation.js')

// Kept replays: first message object -> Map<policy key, { objs, replay }>.
const kept = new WeakMap()
const policyKeys = new WeakMap()

// What the replay depends on, as a string: equal policies share kept replays.
function policyKey(o, env) {
  let k = policyKeys.get(o)
  if (k === undefined) {
    const perTool = [...o.perTool].map(([name, t]) => [name, t.sizeChars, t.evictChars]).sort()
    k = JSON.stringify([o.cacheModel, o.compactAfter, o.keepLastN, o.sizeChars, o.evictChars, o.evictPreviewChars, o.recallAnswers, o.windowCalls, o.quotedCalls, o.horizonCalls, o.maxExtraCost, o.marks, o.pricing.cacheWrite, o.pricing.cacheRead, [...o.exemptTools].sort(), perTool], (_, v) => (v === Infinity ? 'Infinity' : v))
    policyKeys.set(o, k)
  }
  return `${k}|${env.toolChars}|${env.systemChars}|${env.recallToolChars}`
}

// The kept replay of this list's prefix, or a new one.
function replayFor(messages, o, env) {
  const first = messages[0]
  if (first === undefined) return new Replay(o, env)
  const key = policyKey(o, env)
  let byKey = kept.get(first)
  if (byKey === undefined) kept.set(first, (byKey = new Map()))
  let e = byKey.get(key)
  let ok = e !== undefined && e.objs.length <= messages.length
  for (let j = 0; ok && j < e.objs.length; j++) ok = messages[j] === e.objs[j]
  if (!ok) {
    e = { objs: [], replay: new Replay(o, env) }
    byKey.set(key, e)
  }
  for (let j = e.objs.length; j < messages.length; j++) e.objs.push(messages[j])
  return e.replay
}

/**
 * What to compact in `messages` (PlainMessage[], conversation.js) for the
 * call about to be made, under the resolved options `o` (resolveOptions).
 * `env`: the sizes of what precedes the messages in the request.
 * @returns {import('./conversation.js').Plan}
 */
function plan(messages, o, env = NO_ENV) {
  const replay = replayFor(messages, o, env)
  replay.feed(messages)
  const now = replay.fork()
  now.callAt(now.call, messages.length)
  return { decisions: now.decisions, marks: now.marks, cost: { ours: now.ours, none: now.none } }
}

module.exports = { plan }
