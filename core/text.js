'use strict'
// Text sizes as the ledger counts them: code points, not UTF-16 units.

const HIGH_SURROGATE = /[\uD800-\uDBFF]/
const SURROGATE_PAIR = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g

// Length in code points, as the ledger counts. The regex scan is several times
// faster than a charCodeAt loop on megabyte payloads, and most have no pairs.
function codePoints(s) {
  if (!HIGH_SURROGATE.test(s)) return s.length
  const pairs = s.match(SURROGATE_PAIR)
  return s.length - (pairs === null ? 0 : pairs.length)
}

// One line, at most `max` code points: control characters (and U+2028/9)
// escaped as the native stub escapes them, so no field can add a line.
function oneLine(value, max) {
  const s = Array.from(String(value).slice(0, max * 2)).slice(0, max).join('')
  return s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) =>
    c === '\n' ? '\\n' : c === '\r' ? '\\r' : c === '\t' ? '\\t' : `\\u{${c.charCodeAt(0).toString(16)}}`,
  )
}

module.exports = { codePoints, oneLine }
