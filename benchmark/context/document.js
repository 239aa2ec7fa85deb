'use strict'
// The document conversation of `npm run bench:context` (issue 40 item 8): an
// agent reads a scanned document page by page, 16 pages of SQLite's "Database
// File Format" (fixtures/document, 850×1100 bilevel PNG, no text layer: the
// tool's text is only the page's number), and twice turns back to the
// header's table (page 3 at call 12, page 2 at call 16). Replayed and priced
// by images.js.

const fs = require('node:fs')
const path = require('node:path')

const DIR = path.join(__dirname, '..', '..', 'fixtures', 'document')
const PAGES = 16

/** The conversation, in the form images.js replays. */
const document = {
  name: 'document',
  title: 'an agent reads a scanned document (SQLite\'s "Database File Format"): one 850×1100 page image per step',
  tool: 'read_page',
  description: 'Scan the next page of the document; returns its number and its image.',
  user: 'Read the scanned SQLite file format document and tell me how a database file begins.',
  steps: Array.from({ length: PAGES }, (_, i) => ({
    text: `Page ${i + 1} of ${PAGES}: Database File Format (scanned, 100 dpi, no text layer)`,
    image: fs.readFileSync(path.join(DIR, `page-${String(i + 1).padStart(2, '0')}.png`)).toString('base64'),
    mimeType: 'image/png',
  })),
  lookBack: new Map([
    [12, 3],
    [16, 2],
  ]),
  label: (step) => `Page ${step} of `,
}

module.exports = { document }
