'use strict'
// A long payload crossing into an async `record`: in slices, one per turn of
// the event loop, and only a few records at a time.
//
// Slices. A string longer than SLICE_UNITS UTF-16 units, or a Buffer longer
// than SLICE_BYTES, is copied into the native side a slice (512 KiB) at a
// time, one slice per turn across all records (first come, first served),
// where one 10 MB copy took up to 14 ms of one turn and 20 records queued at
// once would copy together in one turn. `s.slice` and `b.subarray` are O(1)
// in V8 and the copy reads the original; a surrogate pair or a UTF-8
// sequence cut by a slice edge is whole again on the native side.
//
// Buffers. A 5 MB Buffer copied whole at the call held the JS thread for
// 3-5 ms (median; up to 17 ms), a 52 MB one for 51-143 ms, mostly page
// faults of the fresh copy (this VM: 3.5-5 ms to write 5 MB into fresh
// pages, 0.6-0.8 ms into mapped ones). In slices, each turn copies 512 KiB
// into a recycled slice buffer (about 0.1 ms), joined on the pool
// (crates/symfonic-core/src/transcode/pieces.rs).
// The Buffer is read over those turns, so it must not be modified until its
// record settles (as with Node's own asynchronous writes); one that is
// detached or resized meanwhile makes the record reject, never a torn payload
// of the wrong length.
//
// Transcoded as it crosses, when alone. A record that starts crossing while
// no other is in flight has its slices transcoded to UTF-8 by a thread of
// its own as they arrive (`crates/symfonic-core/src/transcode/stream.rs`), so its work on
// the pool starts with the text all but ready: on the 2-vCPU VM, a 5 MB
// Latin-1 catalog recorded in 11.5-13.1 ms against 12.5-17.0 ms, CJK in
// 10.9-11.5 against 13.3-14.6 (npm run bench -- ledger, 3 runs each,
// interleaved with the build before). While others are in
// flight the pool is busy and such a thread only competes with the event
// loop (the slices' copies took twice as long at the 95th percentile, and
// the longest stall of 20 records in flight rose from 3.6-5.1 ms to 5.8-7.3
// ms, median of 5 bursts): then the units are gathered whole and
// transcoded on the pool once crossed, as before. That thread also hashes
// each converted slice for the record's memory id (the call id is given at
// the start), so that the hash, 0.4-1 ms of a 5 MB record on the pool, is
// done by the time the last slice has crossed.
//
// Latin-1 slices. A slice of a streamed crossing whose units are all at
// most U+00FF (BEYOND_LATIN1 finds none) is copied as Latin-1, one byte a
// unit: for a string V8 holds as one-byte (ASCII text, most JSON) that is a
// memcpy of half the bytes, where the UTF-16 copy widens every byte; the
// transcoding thread converts it, and its bytes are the same as the UTF-16
// copy's would give. Once a slice holds a unit above U+00FF, the string is
// two-byte in V8 (a copy of it as UTF-16 is a memcpy) and its later slices
// are not tested. The test costs what it finds: about 8 µs per slice of an
// ASCII string; only a two-byte string whose slices hold nothing above
// U+00FF is scanned whole, a slice at a time, until one does.
//
// A few at a time. At most IN_FLIGHT such records are between their first
// slice and their answer; the next one starts crossing when one is answered.
// Each record's native work takes up to two threads (the JSON index of a
// large payload is built by two), so this many keep the CPUs busy, while the
// buffers the slices are copied into are the few the native side recycles,
// pages already mapped: a slice copied into fresh pages took 2 to 11 ms
// while the thread pool was busy, against 0.1 ms into recycled ones. With 20
// records of 5 MB queued at once on a 2-vCPU VM, the event loop's longest
// stall fell from 8-16 ms to 4-8 ms (npm run bench -- ledger), and the
// crossing buffers held at once from 20 (200 MB) to 2.

const { availableParallelism } = require('node:os')
const binding = require('./native.js')

const SLICE_UNITS = 1 << 18
const SLICE_BYTES = 2 * SLICE_UNITS
// A Buffer over the ledger's limit (4,000,000,000 bytes, within the u32 that
// sizes a crossing) does not cross: the native record refuses it by its
// length, before anything is copied.
const MAX_SLICED_BYTES = binding.MAX_CONTENT_BYTES
const IN_FLIGHT = Math.max(2, Math.floor(availableParallelism() / 2))
// A unit Latin-1 cannot hold. Its test is near free on a string V8 holds as
// one-byte, and on a two-byte one usually stops at once (see "Latin-1 slices").
const BEYOND_LATIN1 = /[^\u0000-\u00ff]/

const crossing = { queue: [], pumping: false, inFlight: 0 }

/** Whether `content` is a string or a Buffer that crosses in slices. */
function isLong(content) {
  if (typeof content === 'string') return content.length > SLICE_UNITS
  return Buffer.isBuffer(content) && content.length > SLICE_BYTES && content.length <= MAX_SLICED_BYTES
}

/**
 * Crosses `s` in slices, then answers with `record(crossing)` (the native
 * record of the crossed payload); the slot is released once that settles.
 * A string transcoded as it crosses is hashed as it goes for the memory id
 * of `callId` (the record's toolCallId).
 */
async function recordInSlices(s, record, callId) {
  const into = await new Promise((resolve, reject) => {
    crossing.queue.push({ s, len: s.length, at: 0, into: null, started: false, callId, resolve, reject })
    pump()
  })
  try {
    return await record(into)
  } finally {
    crossing.inFlight--
    pump()
  }
}

// Schedules the next slice, if there is one to copy now.
function pump() {
  const job = crossing.queue[0]
  if (crossing.pumping || !job) return
  if (!job.started && crossing.inFlight >= IN_FLIGHT) return
  crossing.pumping = true
  setImmediate(copySlice)
}

// One slice per call; the next call is the next turn's (setImmediate queued
// while immediates run waits for the next turn, after timers and I/O).
function copySlice() {
  crossing.pumping = false
  const job = crossing.queue[0]
  if (!job.started) {
    job.started = true
    crossing.inFlight++
  }
  try {
    if (typeof job.s === 'string') {
      if (!job.into) {
        job.narrow = crossing.inFlight === 1
        job.into = new binding.__Crossing(job.s.length, job.narrow, job.callId)
      }
      const part = job.s.slice(job.at, job.at + SLICE_UNITS)
      if (job.narrow && BEYOND_LATIN1.test(part)) job.narrow = false
      if (job.narrow) job.into.pushLatin1(part)
      else job.into.push(part)
      job.at += SLICE_UNITS
    } else {
      if (job.s.length !== job.len) throw resized(job.len, job.s)
      job.into ??= binding.__Crossing.ofBytes(job.len)
      job.into.push(job.s.subarray(job.at, job.at + SLICE_BYTES))
      job.at += SLICE_BYTES
    }
    if (job.at >= job.len) {
      crossing.queue.shift()
      job.resolve(job.into)
    }
  } catch (e) {
    crossing.queue.shift()
    crossing.inFlight--
    job.reject(e)
  }
  pump()
}

// The record's rejection when its Buffer of `len` bytes changed length before it crossed.
function resized(len, b) {
  return new TypeError(
    `Ledger.record(input): content: the Buffer of ${len} bytes is ${b.length} bytes now, ` +
      'detached, transferred or resized before its record settled (a Buffer must not change until then)',
  )
}

module.exports = { isLong, recordInSlices, resized }
