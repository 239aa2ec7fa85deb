'use strict'
// When V8 hears of the native memory async records add (crates/symfonic-core/src/external.rs).
//
// Each report that takes V8 past its external limit starts a full marking
// cycle on the JS thread. While records are in flight every ledger is alive,
// so such a cycle frees nothing: the growth is held back, and reported once
// this thread has had no record in flight for QUIET_MS. Reported at the last
// settle instead, it started a cycle at the end of every burst of 20 records
// of 5 MB, most often the burst's longest stall: over 48 bursts in fresh
// processes on the 2-vCPU VM, interleaved, the longest stall's median went
// from 4.95 to 4.42 ms and its 90th percentile from 11.1 to 5.9 ms. A ledger
// cleared within the spell costs no cycle at all. Growth past the cap (set
// below) is reported at once.

const { getHeapStatistics } = require('node:v8')
const binding = require('./native.js')

/** How long this thread goes without a record in flight before V8 hears of the growth. */
const QUIET_MS = 200

// Growth held back at most: an eighth of the heap limit, far below the half
// at which V8 collects synchronously.
binding.__deferExternalUpTo(Math.min(256 * 2 ** 20, Math.floor(getHeapStatistics().heap_size_limit / 8)))

let timer = null
let waiting = []

function flush() {
  timer = null
  binding.__flushExternal()
  const w = waiting
  waiting = []
  for (const resolve of w) resolve()
}

/** An async record begins. */
function recordBegins() {
  binding.__recordBegins()
}

/** An async record settled; the last one in flight starts (or restarts) the quiet spell. */
function recordSettles() {
  if (!binding.__recordSettles()) return
  if (timer === null) {
    timer = setTimeout(flush, QUIET_MS)
    // The spell never keeps a process alive: at exit, V8's count no longer matters.
    timer.unref()
  } else {
    timer.refresh()
  }
}

/**
 * Internal, for tests: resolves once the quiet spell running now has ended
 * (at once when none is); while awaited, the spell keeps the process alive.
 */
function quietSpellEnded() {
  if (timer === null) return Promise.resolve()
  timer.ref()
  return new Promise((resolve) => waiting.push(resolve))
}

module.exports = { QUIET_MS, recordBegins, recordSettles, quietSpellEnded }
