'use strict'
// Property: on random JSON documents, a json path that names one node answers
// that node's original text: it parses to the value `JSON.parse` gives for the
// same path, and it is a slice of the payload. A random path never throws.
// Fixed seed and bounded runs, so CI stays fast and a failure reproduces.

const fc = require('fast-check')
const { Ledger } = require('..')

const SEED = 20261201
const ledger = new Ledger()

// Every node of a parsed document with the path that names it, in the
// package's syntax: identifier-like keys dotted, others quoted in brackets.
function nodes(value, path = '', out = []) {
  out.push({ path, value })
  if (Array.isArray(value)) value.forEach((v, i) => nodes(v, `${path}[${i}]`, out))
  else if (value !== null && typeof value === 'object') {
    for (const k of Object.keys(value)) {
      const step = /^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? `${path === '' ? '' : '.'}${k}` : `["${k.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"]`
      nodes(value[k], path + step, out)
    }
  }
  return out
}

// `["a"]` and `a` both name key "a"; a key that looks like an integer is
// looked up as a key on objects, so the quoted form is exact there too.
const doc = fc.jsonValue({ maxDepth: 5 })

describe('json_path against JSON.parse', () => {
  test('every single node a path names comes back compact, or as its original text with raw', () => {
    let checked = 0
    fc.assert(
      fc.property(doc, fc.nat(), fc.boolean(), (value, pick, pretty) => {
        const text = JSON.stringify(value, null, pretty ? 2 : 0)
        if (text === undefined) return
        const memId = ledger.recordSync({ toolCallId: `c${checked}`, toolName: 't', content: text }).memId
        const all = nodes(JSON.parse(text)).filter((n) => n.path !== '')
        if (all.length === 0) return
        const { path, value: expected } = all[pick % all.length]
        const answer = ledger.fetchSync(memId, { jsonPath: path })
        expect(JSON.parse(answer)).toEqual(expected)
        // Compact: what JSON.stringify writes, from the payload's own tokens.
        expect(answer).toBe(JSON.stringify(expected))
        expect(text.includes(ledger.fetchSync(memId, { jsonPath: path, format: 'raw' }))).toBe(true)
        checked++
      }),
      { seed: SEED, numRuns: 400 },
    )
    expect(checked).toBeGreaterThan(100)
  })

  test('a random path over a random document answers a string and never throws', () => {
    fc.assert(
      fc.property(doc, fc.string({ maxLength: 40 }), (value, path) => {
        const text = JSON.stringify(value)
        const memId = ledger.recordSync({ toolCallId: 'r', toolName: 't', content: text }).memId
        const answer = ledger.fetchSync(memId, { jsonPath: path })
        expect(typeof answer).toBe('string')
      }),
      { seed: SEED, numRuns: 400 },
    )
  })
})
