'use strict'
// The browser-agent conversation of `npm run bench:context` (issue 40 item 8):
// 30 steps, each a real screenshot (fixtures/browser, 800×500 PNG) beside
// its page's text, and twice the model looks back at an old screenshot (step
// 3 at call 15, step 8 at call 25). Replayed and priced by images.js.

const fs = require('node:fs')
const path = require('node:path')

const DIR = path.join(__dirname, '..', '..', 'fixtures', 'browser')
const PAGES = JSON.parse(fs.readFileSync(path.join(DIR, 'pages.json'), 'utf8'))

/** The conversation, in the form images.js replays. */
const browser = {
  name: 'browser',
  title: 'a browser agent reads The Rust Programming Language book: page text and an 800×500 screenshot per step',
  tool: 'browser_step',
  description: 'Open the next page of the book; returns its text and a screenshot.',
  user: 'Read the Rust book page by page.',
  steps: PAGES.map((p) => ({
    text: `Step ${p.step}: ${p.title}\n${p.url}\n${p.text}`,
    image: fs.readFileSync(path.join(DIR, `step-${String(p.step).padStart(2, '0')}.png`)).toString('base64'),
    mimeType: 'image/png',
  })),
  lookBack: new Map([
    [15, 3],
    [25, 8],
  ]),
  label: (step) => `Step ${step}: `,
}

module.exports = { browser }
