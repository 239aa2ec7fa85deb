'use strict'
// Records in flight, bounded by bytes. An async record's payload is copied
// into the native side when its record starts (at the call, or a slice per
// turn for a long one) and is held there, with its UTF-8 text and its
// index, until the record answers. With many conversations recording at
// once (agents do), nothing bounded those copies but the caller's
// concurrency: 1,000 concurrent records of 0.2-0.6 MB over a SQLite store
// (its writes take turns) held 416 MiB above the app's own memory with
// `maxBytes` at 64 MiB. Here a ledger starts a record only while the
// payloads of its records in flight weigh at most its budget (a quarter of
// `maxBytes`, at least 16 MiB; one record always starts, whatever its
// size); the others wait their turn, first come first served, holding only
// the caller's own string or Buffer (so a Buffer must not be modified until
// its record settles). The numbers behind the budget are in
// benchmark/HISTORY.md ("RSS and maxBytes under concurrency").

const MIN_BUDGET = 16 * 2 ** 20

/** What a payload weighs while it crosses: a string's UTF-16 copy, a Buffer's bytes. */
function weightOf(content) {
  return typeof content === 'string' ? 2 * content.length : content.length
}

class InFlight {
  /** A gate for a ledger of `maxBytes`. */
  constructor(maxBytes) {
    this.budget = Math.max(MIN_BUDGET, maxBytes / 4)
    this.bytes = 0
    this.count = 0
    this.queue = []
  }

  /**
   * Calls `start()` (which returns the record's promise, or throws) once a
   * payload of `weight` fits: at once when it does and nobody waits, so a
   * record that need not wait starts within the call, as before; and at once
   * when `now` (a payload the native call refuses by its length alone).
   */
  run(weight, start, now = false) {
    if (now) return this.begin(0, start)
    if (this.queue.length === 0 && this.fits(weight)) return this.begin(weight, start)
    return new Promise((resolve, reject) => this.queue.push({ weight, start, resolve, reject }))
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
      this.begin(job.weight, job.start).then(job.resolve, job.reject)
    }
  }
}

module.exports = { InFlight, weightOf }
