'use strict'
// Lays out docs/testing.md's set-up in the current folder, as a reader
// following it would: the files its blocks name (```json tsconfig.json,
// ```js jest.config.js) and its `ts test` blocks as *.test.ts. Prints the
// arguments of its `npm install -D` line, for .ci/consumer.sh to run.

const fs = require('node:fs')
const path = require('node:path')
const [root] = process.argv.slice(2)
const { blocksOf } = require(path.join(root, 'scripts', 'doctest.js'))

const blocks = blocksOf(fs.readFileSync(path.join(root, 'docs', 'testing.md'), 'utf8'))
let tests = 0
for (const b of blocks) {
  const named = b.flags.find((f) => /^[\w.-]+\.(json|js)$/.test(f))
  if (named) fs.writeFileSync(named, b.code)
  else if (b.lang === 'ts' && b.flags.includes('test')) {
    fs.writeFileSync(`testing-md-L${b.line}.test.ts`, b.code)
    tests++
  }
}
for (const f of ['tsconfig.json', 'jest.config.js']) if (!fs.existsSync(f)) throw new Error(`docs/testing.md has no block for ${f}`)
const dev = blocks.flatMap((b) => (b.lang === 'sh' ? b.code.split('\n') : [])).find((l) => l.startsWith('npm install -D '))
if (!dev || tests === 0) throw new Error('docs/testing.md has no `npm install -D` line or no ts test block')
process.stdout.write(dev.slice('npm install -D '.length).trim())
