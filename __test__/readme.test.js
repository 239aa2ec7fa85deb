'use strict'
// The README is the user's first screen: at most 250 lines, a tagline, the
// install, then a short example whose one integration line is
// `middleware: [toolMemoryMiddleware()]`, followed by the stub it prints
// (npm run doctest runs the example and compares its output with that
// block), then the features, when not to use it, and the docs index. No
// project history in it.

const fs = require('node:fs')
const path = require('node:path')
const { blocksOf, modeOf } = require('../scripts/doctest.js')

const readme = fs.readFileSync(path.join(__dirname, '..', 'README.md'), 'utf8')
const lines = readme.split('\n')
const headings = lines.filter((l) => l.startsWith('## '))

test('at most 250 lines', () => {
  expect(lines.length).toBeLessThanOrEqual(250)
})

test('a tagline, then the install, then the example', () => {
  expect(lines[0]).toBe('# @symfonic/core')
  expect(lines.slice(2, 5).join(' ')).toMatch(/^Keeps large tool results \(text, screenshots, documents\) out of your TypeScript agent's prompt/)
  // The first screen names the three frameworks and their entries.
  for (const entry of ['@symfonic/core/langchain', '@symfonic/core/ai-sdk', '@symfonic/core/openai-agents']) expect(lines.slice(0, 12).join(' ')).toContain(entry)
  expect(headings.slice(0, 3)).toEqual(['## Install', '## Use it', '## Features'])
  expect(readme).toContain('npm install @symfonic/core')
})

test('the first code that runs is the one-line integration, in five to ten lines, followed by the stub it prints', () => {
  const blocks = blocksOf(readme)
  const first = blocks.findIndex((b) => modeOf(b) === 'run')
  const example = blocks[first]
  const code = example.code.trimEnd().split('\n')
  expect(code.length).toBeGreaterThanOrEqual(5)
  expect(code.length).toBeLessThanOrEqual(10)
  expect(example.code).toContain('middleware: [toolMemoryMiddleware()]')
  // ES-module code says so, and how to run it, in the words before it.
  const { isEsm } = require('../scripts/doctest.js')
  if (isEsm(example.code)) expect(lines.slice(example.line - 5, example.line - 1).join(' ')).toMatch(/as an ES module .*`app\.mjs`.*"type": "module"/)
  const output = blocks[first + 1]
  expect([output.lang, output.flags]).toEqual(['text', ['output']])
  expect(output.code).toMatch(/^\[symfonic\.tool_memory v2\]\ntool=get_catalog call_id=call_1\nmem=trm_[0-9a-f]{12} size=\d+ chars\n/)
  expect(output.code).toMatch(/\nTo read more: recall_tool_result\(mem_id="trm_[0-9a-f]{12}", json_path="\$\.items\[0\]"\)\n$/)
})

test('features, when not to use it, the docs index, the jest recipe and the error table are there', () => {
  for (const h of ['## Features', '## Testing your agent with jest', '## Errors', '## When not to use it', '## Documentation']) expect(headings).toContain(h)
  expect(blocksOf(readme).some((b) => modeOf(b) === 'test')).toBe(true)
  expect(readme).toMatch(/\| `ERR_SYMFONIC_STORE` \|/)
})

test('a fresh clone\'s two commands, npm install then npm test, are shown', () => {
  const sh = blocksOf(readme).filter((b) => b.lang === 'sh').map((b) => b.code.split('\n').map((l) => l.replace(/\s*#.*$/, '')).filter(Boolean))
  expect(sh).toContainEqual(['npm install', 'npm test'])
})

test('the scripted demo is labelled as scripted', () => {
  expect(readme).toMatch(/\*\*Its model is scripted\*\*/)
})

test('no project history, lab notes or bets', () => {
  expect(readme).not.toMatch(/Python|symfonic-core 9|the seed|\bbet\b|issue \d+|HISTORY\.md/i)
})

test('no project history in the user docs either (it goes to benchmark/HISTORY.md)', () => {
  const docs = path.join(__dirname, '..', 'docs')
  const found = []
  for (const f of fs.readdirSync(docs).filter((f) => f.endsWith('.md'))) {
    // Python is named where a doc compares with Python's strings or regexes, and as the name of a benchmark baseline.
    const text = fs.readFileSync(path.join(docs, f), 'utf8')
    text.split('\n').forEach((line, i) => {
      const m = /Python original|symfonic-core \d|the seed|\bbet\b|\bissues? #?\d+|HISTORY\.md/i.exec(line)
      if (m) found.push(`docs/${f}:${i + 1}: ${m[0]}`)
    })
  }
  expect(found).toEqual([])
})
