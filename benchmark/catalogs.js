'use strict'
// The three 5 MB product-feed catalogs of issue 11, shaped like a real feed
// (rows of nested objects), differing only in their titles: ASCII, Latin-1
// letters with a dash (which makes V8 hold the string as two-byte), and CJK
// with emoji. Deterministic, so every run and every suite sees the same bytes.

const TARGET_BYTES = 5 * 1024 * 1024

const TITLES = {
  ascii: (i) => `Stainless steel widget, model ${i}, pack of ${(i % 12) + 1}`,
  latin1: (i) => `Crème brûlée torch — café édition ${i}, lot de ${(i % 12) + 1}`,
  cjk: (i) => `不锈钢保温杯 ${i} 号 🔥 限时特价 😀 ${(i % 12) + 1} 件装`,
}

function row(i, title) {
  return {
    id: i,
    sku: `SKU-${(1e8 + i * 7919).toString(36).toUpperCase()}`,
    title: title(i),
    brand: { name: ['Acme', 'Globex', 'Initech', 'Umbrella'][i % 4], country: ['US', 'DE', 'JP', 'FR'][i % 4] },
    price: { amount: Math.round((5 + ((i * 37) % 500) + (i % 100) / 100) * 100) / 100, currency: 'EUR' },
    variants: [
      { color: ['red', 'blue', 'black'][i % 3], stock: (i * 13) % 40 },
      { color: 'steel', stock: (i * 7) % 25 },
    ],
    rating: { avg: ((i * 17) % 50) / 10, count: (i * 31) % 2000 },
    tags: ['home', i % 2 ? 'sale' : 'new'],
  }
}

/** A catalog as a JSON string of at least TARGET_BYTES UTF-8 bytes. */
function catalog(kind) {
  const title = TITLES[kind]
  if (!title) throw new TypeError(`catalog: unknown kind ${kind}`)
  const rows = []
  let size = 0
  for (let i = 0; size < TARGET_BYTES; i++) {
    const r = row(i, title)
    rows.push(r)
    size += Buffer.byteLength(JSON.stringify(r)) + 1
  }
  return JSON.stringify({ meta: { source: 'feed', count: rows.length, page: 1 }, rows })
}

/** Items joined by commas between two brackets, until at least TARGET_BYTES UTF-8 bytes. */
function joined(open, item, close) {
  const items = []
  let size = 0
  for (let i = 0; size < TARGET_BYTES; i++) {
    const s = item(i)
    items.push(s)
    size += Buffer.byteLength(s) + 1
  }
  return open + items.join(',') + close
}

/**
 * The flat documents of issue 11's stall row, with no nested containers to
 * close: `'strings'`, an array of Latin-1 strings; `'numbers'`, an object
 * whose members are decimals.
 */
const FLAT = {
  strings: () => joined('[', (i) => `"produit numéro ${i} — qualité"`, ']'),
  numbers: () => joined('{', (i) => `"clé_${i}":${i * 7919}.5`, '}'),
}

/** A flat document (see FLAT) as a JSON string of at least TARGET_BYTES UTF-8 bytes. */
function flat(kind) {
  const make = FLAT[kind]
  if (!make) throw new TypeError(`flat: unknown kind ${kind}`)
  return make()
}

module.exports = { catalog, flat, KINDS: Object.keys(TITLES), FLAT_KINDS: Object.keys(FLAT), TARGET_BYTES }
