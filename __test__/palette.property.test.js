'use strict'
// Property: palette membership is exact string comparison, UTF-16 unit for
// unit, as a plain JS reference implementation decides it (prefix rules
// ending in `*` are `startsWith`), lone surrogates included.

const fc = require('fast-check')
const { StaticPaletteResolver } = require('..')

const SEED = 0x9a1e_77e5
// A small alphabet makes equal names, shared prefixes and lossy aliases likely.
const unit = fc.constantFrom('a', 'b', '_', '\uD800', '\uDBFF', '\uDC00', '\uDFFF', '\uFFFD', '\uD83D', '\uDE00', '\uE000', '\u0000')
const body = fc.string({ unit, minLength: 1, maxLength: 5 }).filter((s) => !s.includes('*'))
const entry = fc.oneof(body, body.map((b) => b + '*'), fc.constant('*'))

// The reference: what the documented rules say, in plain JS. A name holding
// `\0` is never matched (it cannot be sent to the matcher).
function allowed(entries, name) {
  if (name.includes('\0')) return false
  return entries.some((e) => (e.endsWith('*') ? name.startsWith(e.slice(0, -1)) : e === name))
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
        for (const name of names) expect(r.allows('role', name)).toBe(allowed(entries, name))
        const tools = names.map((name) => ({ name }))
        const want = tools.filter((t) => allowed(entries, t.name))
        const got = r.resolve({}, 'role', tools)
        expect(got).toEqual(want.length === 0 ? null : want)
        if (got !== null) got.forEach((t, i) => expect(t).toBe(want[i]))
      },
    ),
    { seed: SEED, numRuns: 500 },
  )
})
