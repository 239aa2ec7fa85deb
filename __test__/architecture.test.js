'use strict'
// docs/architecture.md's tree names every module of the JS side and every
// script, so a reader finds each one from the page.

const fs = require('node:fs')
const path = require('node:path')

const root = path.join(__dirname, '..')
const page = fs.readFileSync(path.join(root, 'docs', 'architecture.md'), 'utf8')
const tree = page.slice(page.indexOf('## Where each concept lives'), page.indexOf('## Size'))

test('the tree names every module of lib/, core/, langchain/ and openai-agents/', () => {
  const modules = ['lib', 'core', 'langchain', 'openai-agents'].flatMap((dir) => fs.readdirSync(path.join(root, dir)).filter((f) => f.endsWith('.js')))
  expect(modules.filter((f) => !new RegExp(`(^|\\n)\\s+${f.replace('.', '\\.')}\\s`).test(tree))).toEqual([])
})

test('the tree names every script', () => {
  const line = tree.split('\n').find((l) => l.startsWith('scripts/'))
  expect(fs.readdirSync(path.join(root, 'scripts')).filter((f) => !line.includes(f))).toEqual([])
})
