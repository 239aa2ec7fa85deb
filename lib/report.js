'use strict'
// What the middlewares tell the user: warnings through a logger (default
// `console`, each distinct warning once), and small typed events through an
// optional `onEvent` callback (for metrics or LangSmith). Neither a logger
// nor a callback that throws can take the agent loop down.

// Distinct warnings and events remembered per logger / callback, bounded so a
// long-lived server does not grow without end (a forgotten key only repeats).
const SEEN_LIMIT = 20000
const seenBy = new WeakMap()

function seenSet(owner) {
  let s = seenBy.get(owner)
  if (s === undefined) {
    s = new Set()
    seenBy.set(owner, s)
  }
  return s
}

function firstTime(owner, key) {
  const s = seenSet(owner)
  if (s.has(key)) return false
  s.add(key)
  if (s.size > SEEN_LIMIT) s.delete(s.values().next().value)
  return true
}

/** A reporter: `warn(key, message)` once per key and logger; `event(e, onceKey?)`. */
function reporter(logger, onEvent) {
  const log = logger ?? console
  return {
    warn(key, message) {
      if (!firstTime(log, key)) return
      try {
        log.warn(message)
      } catch {
        // a logger that throws is not our failure to report
      }
    },
    event(e, onceKey) {
      if (typeof onEvent !== 'function') return
      if (onceKey !== undefined && !firstTime(onEvent, onceKey)) return
      try {
        onEvent(e)
      } catch (err) {
        this.warn(`onEvent\0${err && err.message}`, `@symfonic/core: onEvent threw (${err && err.message}); the event was dropped`)
      }
    },
    // The ledger's store failed while recall_tool_result read an entry: the
    // detail the model's answer leaves out (address, server error) is the app's.
    /** Whether `key` is new to this reporter's callback (else it was seen). */
    first(key) {
      return firstTime(onEvent ?? log, key)
    },
    storeFailed(memId, namespace, err) {
      const error = String((err && err.message) || err)
      this.warn(`storeFailed\0${error}`, `@symfonic/core: the ledger's store failed while recall_tool_result read ${memId}: ${error}`)
      this.event({ type: 'storeFailed', memId: String(memId), namespace, error, code: (err && err.code) || null })
    },
  }
}

module.exports = { reporter }
