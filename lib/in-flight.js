'use strict'
// Records in flight, bounded by bytes. An async record's payload is copied
// into the native side when its record starts and is held there, with its
// UTF-8 text and its index, until the record answers; with many
// conversations recording at once, nothing else would bound those copies
// but the caller's concurrency. A ledger starts a record only while the
// payloads of its records in flight weigh at most a quarter of `maxBytes`
// (at least 16 MiB; one record always starts, whatever its size); the others
// wait their turn, first come first served, holding only the caller's own
// string or Buffer. With a store, that wait counts against the call's
// `timeoutMs`: a record still waiting at its bound is refused, never sent.
// (Why a quarter: benchmark/HISTORY.md, "RSS and maxBytes under concurrency".)

const binding = require('./native.js')

const MIN_BUDGET = 16 * 2 ** 20

/**
 * What a record weighs while in flight: a string's UTF-16 copy and the UTF-8
 * and index made of it (4 bytes a unit); a Buffer's copy and index (2 a byte).
 */
function weightOf(content) {
  return typeof content === 'string' ? 4 * content.length : 2 * content.length
}

// A record still waiting for its turn at its bound: the native side words its error.
function timedOut(boundMs) {
  try {
    binding.__queueTimeout(boundMs)
  } catch (e) {
    return e
  }
}

class InFlight {
  /** A gate for a ledger of `maxBytes`; `boundMs`: its timeoutMs with a store, else null. */
  constructor(maxBytes, boundMs) {
    this.budget = Math.max(MIN_BUDGET, maxBytes / 4)
    this.boundMs = boundMs
    this.bytes = 0
    this.count = 0
    this.queue = []
  }

  /**
   * Calls `start()` (which returns the record's promise, or throws) once a
   * payload of `weight` fits: at once when it does and nobody waits, and at
   * once when `now` (a payload the native call refuses by its length alone).
   */
  run(weight, start, now = false) {
    if (now) return this.begin(0, start)
    if (this.queue.length === 0 && this.fits(weight)) return this.begin(weight, start)
    return new Promise((resolve, reject) => {
      const job = { weight, start, resolve, reject, timer: null }
      if (this.boundMs !== null) {
        job.timer = setTimeout(() => {
          this.queue.splice(this.queue.indexOf(job), 1)
          reject(timedOut(this.boundMs))
        }, this.boundMs)
      }
      this.queue.push(job)
    })
  }

  fits(weight) {
    return this.count === 0 || this.bytes + weight <= this.budget
  }

  begin(weight, start) {
    this.bytes += weight
    this.count++
    let p
    try {
      p = start()
    } catch (e) {
      p = Promise.reject(e)
    }
    return p.finally(() => this.end(weight))
  }

  end(weight) {
    this.bytes -= weight
    this.count--
    while (this.queue.length > 0 && this.fits(this.queue[0].weight)) {
      const job = this.queue.shift()
      clearTimeout(job.timer)
      this.begin(job.weight, job.start).then(job.resolve, job.reject)
    }
  }
}

/** A record's rejection when its Buffer of `len` bytes changed length before its turn came. */
function resized(len, b) {
  return new TypeError(
    `Ledger.record(input): content: the Buffer of ${len} bytes is ${b.length} bytes now, ` +
      'detached, transferred or resized before its record settled (a Buffer must not change until then)',
  )
}

module.exports = { InFlight, weightOf, resized }
