'use strict'
// The bench's text logs: a generated 5 MB service log (shared by the ledger
// and text-read suites) and, where /work/shared is present, the loghub logs.
const { existsSync, readFileSync } = require('node:fs')
const { join } = require('node:path')
const { TARGET_BYTES } = require('./catalogs.js')

/** A 5 MB ASCII service log: a WARN every 97 lines, one rare ERROR near the end. */
function log() {
  const lines = []
  let size = 0
  for (let i = 0; size < TARGET_BYTES; i++) {
    const level = i % 97 === 0 ? 'WARN' : 'INFO'
    const line = `2026-11-30T12:${String(i % 60).padStart(2, '0')}:00Z ${level} worker-${i % 8} handled request ${i} in ${(i * 31) % 900}ms`
    lines.push(line)
    size += line.length + 1
  }
  // A rare needle near the end, as in a real incident search.
  lines.splice(lines.length - 500, 0, 'ERROR worker-3 code=E1234 upstream timeout after 30000ms')
  return lines.join('\n')
}

const REAL = '/work/shared/real-payloads'
const LOGHUB = ['HDFS', 'Apache', 'Linux', 'Spark']

/**
 * The four loghub 2k logs (real HDFS, Apache, Linux and Spark lines, some
 * CRLF), repeated to about 5 MB; null where they are not on this machine
 * (their license does not let us commit copies).
 */
function loghub() {
  const files = LOGHUB.map((s) => join(REAL, `t-log-${s}.log`))
  if (!files.every(existsSync)) return null
  const one = files.map((f) => readFileSync(f, 'utf8')).join('')
  return one.repeat(Math.ceil(TARGET_BYTES / Buffer.byteLength(one)))
}

module.exports = { log, loghub }
