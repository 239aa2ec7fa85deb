'use strict'
// A long string crossing into an async `record`: its UTF-16 units are copied
// into the native side a slice at a time (`__gatherSlice`, into a spare
// buffer whose pages are mapped), one slice per turn of the event loop, first
// come first served across records, so that no turn copies megabytes (a
// 5 MB string copied whole held the loop 1-5 ms, longer when its pages were
// fresh). The string is read as it is when each slice is
// taken; strings are immutable, so the units are those of the call. (V8
// flattens a concatenated string at its first read, whoever reads it: that
// one copy is V8's.) Shorter strings, Buffers and `recordSync` copy at once.

const binding = require('./native.js')

// 256 Ki units (512 KiB): a copy of about 0.05-0.2 ms.
const SLICE_UNITS = 1 << 18

const queue = []
let pumping = false

/** Whether `content` crosses in slices. */
function isLong(content) {
  return typeof content === 'string' && content.length > SLICE_UNITS
}

/** A promise of the units of `s` gathered on the native side (what `record` takes as its content). */
function gather(s) {
  return new Promise((resolve, reject) => {
    queue.push({ s, at: 0, into: null, resolve, reject })
    pump()
  })
}

function pump() {
  if (pumping || queue.length === 0) return
  pumping = true
  setImmediate(copySlice)
}

// One slice per turn (setImmediate queued while immediates run waits for the next turn).
function copySlice() {
  pumping = false
  const job = queue[0]
  try {
    job.into ??= binding.__gather(job.s.length)
    const to = Math.min(job.at + SLICE_UNITS, job.s.length)
    binding.__gatherSlice(job.into, job.s.slice(job.at, to))
    job.at = to
    if (to === job.s.length) {
      queue.shift()
      job.resolve(job.into)
    }
  } catch (e) {
    queue.shift()
    job.reject(e)
  }
  pump()
}

module.exports = { isLong, gather }
