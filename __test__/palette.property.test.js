'use strict'
// Property: palette membership is exact string comparison, UTF-16 unit for
// unit (prefix rules ending in `*` included, lone surrogates and `\0`
// included), as an independent reference decides it unit by unit.

const fc = require('fast-check')
const { StaticPaletteResolver } = require('..')

const SEED = 0x9a1e_77e5
// A small alphabet makes equal names, shared prefixes and lossy aliases likely.
const unit = fc.constantFrom('a', 'b', '_', '\uD800', '\uDBFF', '\uDC00', '\uDFFF', '\uFFFD', '\uD83D', '\uDE00', '\uE000', '\u0000')
const body = fc.string({ unit, minLength: 1, maxLength: 5 }).filter((s) => !s.includes('*'))
const entry = fc.oneof(body, body.map((b) => b + '*'), fc.constant('*'))

// Whether the first `n` UTF-16 units of `a` and `b` are equal.
function sameUnits(a, b, n) {
  for (let i = 0; i < n; i++) if (a.charCodeAt(i) !== b.charCodeAt(i)) return false
  return true
}

// The reference: the documented rules, unit by unit.
function allowed(entries, name) {
  return entries.some((e) => {
    const star = e.charCodeAt(e.length - 1) === 42
    const body = star ? e.slice(0, -1) : e
    if (star ? name.length < body.length : name.length !== body.length) return false
    return sameUnits(name, body, body.length)
  })
}

test('allows() and resolve() agree with exact comparison', () => {
  fc.assert(
    fc.property(
      fc.array(entry, { minLength: 1, maxLength: 6 }),
      fc.array(fc.string({ unit, maxLength: 6 }), { minLength: 1, maxLength: 8 }),
      (entries, extra) => {
        const r = new StaticPaletteResolver({ roleTools: { role: entries }, logger: { warn() {} } })
        // Names near the entries too: each entry's body, and its body plus a unit.
        const names = [...extra, ...entries.map((e) => e.replace(/\*$/, '')), ...entries.map((e) => e.replace(/\*$/, '') + '\uDC00')]
        // Twice: the second answers come from the remembered verdicts.
        for (let round = 0; round < 2; round++) {
          for (const name of names) expect(r.allows('role', name)).toBe(allowed(entries, name))
          const tools = names.map((name) => ({ name }))
          const want = tools.filter((t) => allowed(entries, t.name))
          const got = r.resolve({}, 'role', tools)
          // An allowlist that matches no tool fails closed: [].
          expect(got).toEqual(want)
          got.forEach((t, i) => expect(t).toBe(want[i]))
        }
      },
    ),
    { seed: SEED, numRuns: 500 },
  )
})
