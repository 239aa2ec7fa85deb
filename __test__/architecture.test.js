'use strict'
// docs/architecture.md's tree names every module of the JS side, every
// script and every module of both Rust crates, and every Rust file the page
// names exists, so a reader finds each one from the page.

const fs = require('node:fs')
const path = require('node:path')

const root = path.join(__dirname, '..')
const page = fs.readFileSync(path.join(root, 'docs', 'architecture.md'), 'utf8')
const tree = page.slice(page.indexOf('## Where each concept lives'), page.indexOf('## Size'))

test('the tree names every module of lib/, core/, langchain/, openai-agents/ and ai-sdk/', () => {
  const modules = ['lib', 'core', 'langchain', 'openai-agents', 'ai-sdk'].flatMap((dir) => fs.readdirSync(path.join(root, dir)).filter((f) => f.endsWith('.js')))
  expect(modules.filter((f) => !new RegExp(`(^|\\n)\\s+${f.replace('.', '\\.')}\\s`).test(tree))).toEqual([])
})

test('the tree names every script', () => {
  const line = tree.split('\n').find((l) => l.startsWith('scripts/'))
  expect(fs.readdirSync(path.join(root, 'scripts')).filter((f) => !line.includes(f))).toEqual([])
})

// The Rust side: the tree's lines under `crates/symfonic-core/src/` and
// `src/`, each "names  what it does". Test-only modules and the crate roots
// (lib.rs) are left out, as scripts/loc.js leaves them out of the sizes.
const isTest = (f) => /^(\w*_)?(tests|proptests|testing)\.rs$/.test(f) || f === 'tests'
const crates = [
  { dir: 'crates/symfonic-core/src', heading: 'crates/symfonic-core/src/' },
  { dir: 'src', heading: 'src/' },
]

/** The tree's lines of one crate: [names column, description]. */
function rustLines(heading) {
  const lines = tree.split('\n')
  const start = lines.findIndex((l) => l.startsWith(heading + ' '))
  const out = []
  for (const l of lines.slice(start + 1)) {
    if (!/^\s/.test(l)) break
    const m = /^\s+((?:[\w-]+(?:\.rs|\/)(?:, )?)+)\s+(.*)$/.exec(l)
    if (m) out.push([m[1].split(', '), m[2]])
  }
  return out
}

/** Every file and folder under `dir`, relative to it. */
function walk(dir, rel = '') {
  return fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((e) => {
    const f = path.posix.join(rel, e.name)
    return e.isDirectory() ? [f + '/', ...walk(dir, f)] : [f]
  })
}

test.each(crates)('the tree names every module of $dir', ({ dir, heading }) => {
  const named = new Set(rustLines(heading).flatMap(([names]) => names))
  expect(named.size).toBeGreaterThan(0)
  const modules = fs
    .readdirSync(path.join(root, dir), { withFileTypes: true })
    .filter((e) => !isTest(e.name) && e.name !== 'lib.rs' && (e.isDirectory() || e.name.endsWith('.rs')))
    .map((e) => (e.isDirectory() ? e.name + '/' : e.name))
  expect(modules.filter((m) => !named.has(m))).toEqual([])
})

test.each(crates)('every file and folder the tree names in $dir exists', ({ dir, heading }) => {
  const missing = []
  for (const [names, what] of rustLines(heading)) {
    for (const n of names) if (!fs.existsSync(path.join(root, dir, n))) missing.push(n)
    // Files named in a description are in the line's module folder, at any depth.
    const folder = names.find((n) => n.endsWith('/'))
    const inside = folder ? walk(path.join(root, dir, folder)) : []
    for (const n of what.match(/(?<![\w/])[a-z][\w-]*(\.rs|\/)/g) || []) {
      if (!inside.some((f) => f === n || f.endsWith('/' + n))) missing.push(`${n} (in ${names.join(', ')})`)
    }
  }
  expect(missing).toEqual([])
})

test('every Rust file the page names exists', () => {
  const places = ['', 'src/', 'crates/symfonic-core/src/']
  const named = [...new Set(page.match(/`[\w/.-]+\.rs`/g) || [])].map((n) => n.slice(1, -1))
  expect(named.length).toBeGreaterThan(10)
  expect(named.filter((n) => !places.some((p) => fs.existsSync(path.join(root, p + n))))).toEqual([])
})
