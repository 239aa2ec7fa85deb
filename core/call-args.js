'use strict'
// A tool call's arguments as a plain snapshot: they come from the model, and
// a Proxy or a throwing getter must not make compaction fail.

/** The own enumerable arguments of `call.args` ({} when they are not a plain object or cannot be read). */
function callArgs(call) {
  const out = {}
  try {
    const args = call && call.args
    if (args === null || typeof args !== 'object' || Array.isArray(args)) return out
    for (const k of Object.keys(args)) {
      try {
        out[k] = args[k]
      } catch {
        out[k] = '[unreadable]'
      }
    }
  } catch {
    // keys that cannot be listed: no arguments
  }
  return out
}

/** The recall call's arguments, normalised: two recalls with equal keys asked for the same slice (null: not serialisable). */
function recallKey(call) {
  const args = callArgs(call)
  const keys = Object.keys(args).filter((k) => args[k] !== undefined && args[k] !== null).sort()
  try {
    return JSON.stringify(keys.map((k) => [k, args[k]]))
  } catch {
    return null
  }
}

module.exports = { callArgs, recallKey }
