'use strict'
// The document conversation of `npm run bench:context` (benchmark/context/
// images.js, document.js): 16 scanned pages through a real createAgent under
// each strategy, priced under both cache models. Each look-back is met, the
// recalled page byte for byte; hindsight bounds ours from below.

const { imageRows } = require('../benchmark/context/images.js')
const { document } = require('../benchmark/context/document.js')

test('the scanned document: every look-back met, recalls byte for byte; floor ≤ oracle < ours < none', async () => {
  const rows = await imageRows(document)
  expect(rows.map((r) => r.cacheModel)).toEqual(['breakpoint', 'prefix'])
  for (const r of rows) {
    for (const s of ['none', 'contextEditing', 'ours', 'newestKept', 'newestKeptForced']) expect(r.needsMet[s]).toBe(document.lookBack.size)
    // Ours meets both look-backs by recalling the page (the request after carries its exact base64).
    expect(r.recalls).toBe(document.lookBack.size)
    expect(r.floor).toBeLessThanOrEqual(r.oracle)
    expect(r.oracle).toBeLessThan(r.ratio.ours)
    // Each page written once whatever a policy does: the floor stays far above the 0.30.
    expect(r.floor).toBeGreaterThan(0.5)
    expect(r.ratio.ours).toBeLessThan(0.8)
    expect(r.tokens).toBeLessThan(0.3)
  }
}, 60000)
