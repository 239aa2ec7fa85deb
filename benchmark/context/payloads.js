'use strict'
// Deterministic payload generators for the scripted conversations: a seeded
// PRNG (mulberry32) and a small vocabulary, so every run sends the same bytes
// and the benchmark's numbers reproduce exactly.

function rngFrom(seed) {
  let a = seed >>> 0
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function seedOf(s) {
  let h = 2166136261
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619)
  return h >>> 0
}

const WORDS = (
  'order refund stock price shipping carrier warehouse invoice customer account balance ledger ' +
  'region season bundle discount margin supplier return window batch queue retry timeout cache ' +
  'request handler parser config schema index token session payload record summary detail ' +
  'quality review rating label colour size weight volume pallet route delay estimate forecast'
).split(' ')

const pick = (rng, xs) => xs[Math.floor(rng() * xs.length)]
const int = (rng, lo, hi) => lo + Math.floor(rng() * (hi - lo + 1))

function words(rng, n) {
  const out = []
  for (let i = 0; i < n; i++) out.push(pick(rng, WORDS))
  return out.join(' ')
}

/** Prose of about `chars` characters (an assistant answer, a web page). */
function prose(seed, chars) {
  const rng = rngFrom(seedOf(String(seed)))
  let s = ''
  while (s.length < chars) {
    const w = words(rng, int(rng, 8, 18))
    s += w.charAt(0).toUpperCase() + w.slice(1) + '. '
  }
  return s.slice(0, chars).trimEnd()
}

const sku = (i) => `SKU-${String(i).padStart(5, '0')}`

/** A product catalog as JSON: `{ meta, items: [...] }`, about `count` x 330 chars. */
function catalog(seed, count) {
  const rng = rngFrom(seedOf(seed))
  const categories = ['garden', 'kitchen', 'outdoor', 'lighting', 'storage', 'textiles', 'tools', 'pets']
  const items = []
  for (let i = 0; i < count; i++) {
    items.push({
      sku: sku(i),
      title: words(rng, 4),
      category: pick(rng, categories),
      price: Math.round(rng() * 20000) / 100,
      currency: 'EUR',
      stock: int(rng, 0, 900),
      rating: Math.round(rng() * 50) / 10,
      tags: [pick(rng, WORDS), pick(rng, WORDS), pick(rng, WORDS)],
      description: words(rng, int(rng, 18, 30)),
    })
  }
  return JSON.stringify({
    meta: { season: seed, count, currency: 'EUR', categories, generated: '2026-03-01T00:00:00Z' },
    items,
  })
}

/** A small JSON time series for one SKU (~3 KB). */
function priceHistory(skuId, points = 60) {
  const rng = rngFrom(seedOf(skuId))
  const out = []
  let p = 20 + rng() * 100
  for (let d = 0; d < points; d++) {
    p = Math.max(1, p + (rng() - 0.5) * 4)
    out.push({ date: `2026-0${1 + Math.floor(d / 28)}-${String(1 + (d % 28)).padStart(2, '0')}`, price: Math.round(p * 100) / 100 })
  }
  return JSON.stringify({ sku: skuId, points: out })
}

/** A source file of about `chars` characters with named functions (queryable). */
function sourceFile(path, chars) {
  const rng = rngFrom(seedOf(path))
  const base = path.replace(/[^a-z]/gi, '')
  const lines = [`// ${path}`, `import { ${words(rng, 2).replace(' ', ', ')} } from './lib'`, '']
  let n = 0
  let len = 0
  while (len < chars) {
    const fn = `${base}Fn${n++}`
    const body = [`export function ${fn}(input, options = {}) {`]
    for (let k = int(rng, 6, 14); k > 0; k--) {
      body.push(`  const ${pick(rng, WORDS)}${k} = input.${pick(rng, WORDS)} ?? options.${pick(rng, WORDS)} // ${words(rng, 5)}`)
    }
    body.push(`  return { ${pick(rng, WORDS)}: ${pick(rng, WORDS)}1 }`, '}', '')
    for (const l of body) len += l.length + 1
    lines.push(...body)
  }
  return lines.join('\n').slice(0, chars)
}

/** JSON search hits (~`n` x 260 chars). */
function searchHits(query, n) {
  const rng = rngFrom(seedOf(query))
  const hits = []
  for (let i = 0; i < n; i++) {
    hits.push({
      path: `src/${pick(rng, WORDS)}/${pick(rng, WORDS)}.ts`,
      line: int(rng, 1, 900),
      score: Math.round(rng() * 1000) / 1000,
      snippet: `${words(rng, 10)} ${query} ${words(rng, 14)}`,
    })
  }
  return JSON.stringify({ query, total: n * 3, hits })
}

/** A test-runner log of about `chars` characters, with a named failure. */
function testLog(target, chars) {
  const rng = rngFrom(seedOf(target))
  const lines = []
  let len = 0
  let i = 0
  while (len < chars) {
    const failed = i % 37 === 23
    const l = `${failed ? 'FAIL' : 'PASS'} ${target}/case_${i} (${int(rng, 1, 400)} ms) ${failed ? `AssertionError: expected ${pick(rng, WORDS)} got ${pick(rng, WORDS)}` : words(rng, 4)}`
    lines.push(l)
    len += l.length + 1
    i++
  }
  return lines.join('\n').slice(0, chars)
}

/** A JSON table of `rows` rows (~110 chars each). */
function tableRows(seed, rows) {
  const rng = rngFrom(seedOf(seed))
  const out = []
  for (let i = 0; i < rows; i++) {
    out.push({ id: i, region: pick(rng, ['north', 'south', 'east', 'west']), orders: int(rng, 0, 5000), revenue: Math.round(rng() * 1e6) / 100, note: words(rng, 3) })
  }
  return JSON.stringify(out)
}

module.exports = { prose, catalog, priceHistory, sourceFile, searchHits, testLog, tableRows, sku }
