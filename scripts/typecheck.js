'use strict'
// `npm run typecheck`, after the `__test__/tsconfig.json` check: type-checks the
// strict consumers in __test__/types/<mode>/, one per TypeScript module mode
// (CommonJS nodenext .cts, ESM nodenext .mts, node16 .ts under "type": "module",
// bundler), each importing `@symfonic/core` and `@symfonic/core/langchain` by
// name so that resolution goes through package.json `exports`.
//
// The first two and bundler reach the package by self-reference (the repo's own
// package.json is their package scope). The node16 consumer's folder has its own
// package.json (for "type": "module"), which hides the repo's, so it reaches the
// package through node_modules: a symlink (git-ignored, made here) to the repo
// root, which TypeScript resolves to the real files.

const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')

const root = path.resolve(__dirname, '..')
// ai6: @symfonic/core/ai-sdk against ai 6's types (the ai-v6 alias, through tsconfig paths).
const modes = ['cjs', 'esm', 'node16', 'bundler', 'ai6']

const link = path.join(root, '__test__/types/node16/node_modules/@symfonic/core')
fs.mkdirSync(path.dirname(link), { recursive: true })
let current = null
try {
  current = fs.readlinkSync(link)
} catch {}
const target = path.relative(path.dirname(link), root)
if (current !== target) {
  fs.rmSync(link, { force: true, recursive: true })
  fs.symlinkSync(target, link, 'dir')
}

const tsc = require.resolve('typescript/bin/tsc')
let failed = 0
for (const mode of modes) {
  const project = path.join('__test__/types', mode)
  process.stdout.write(`typecheck ${project}\n`)
  const r = spawnSync(process.execPath, [tsc, '-p', project], { cwd: root, stdio: 'inherit' })
  if (r.status !== 0) failed++
}
if (failed) {
  console.error(`${failed} of ${modes.length} module modes failed to type-check`)
  process.exit(1)
}

// Mistakes whose error must carry its hint (__test__/types/misuse): each line
// after an `// error: <text>` comment fails, and tsc's message for it
// contains <text>; no other line fails. tsc widens a string literal in an
// error to 'string', which is why the hints are typed as they are.
const misuse = '__test__/types/misuse'
process.stdout.write(`typecheck ${misuse} (each error carries its hint)\n`)
const r = spawnSync(process.execPath, [tsc, '-p', misuse, '--pretty', 'false'], { cwd: root, encoding: 'utf8' })
const source = fs.readFileSync(path.join(root, misuse, 'uncalled.cts'), 'utf8').split('\n')
const expected = new Map() // line (1-based) -> hint
source.forEach((l, i) => {
  const m = /^\/\/ error: (.+)$/.exec(l)
  if (m) expected.set(i + 2, m[1])
})
const errors = new Map() // line -> the error's text, its elaboration included
let at = null
for (const l of r.stdout.split('\n')) {
  const m = /^[^(]+\((\d+),\d+\): error /.exec(l)
  if (m) at = Number(m[1])
  if (at !== null) errors.set(at, (errors.get(at) || '') + l + '\n')
}
const wrong = []
for (const [line, hint] of expected) {
  if (!errors.has(line)) wrong.push(`line ${line}: no error (expected one saying ${JSON.stringify(hint)})`)
  else if (!errors.get(line).includes(hint)) wrong.push(`line ${line}: the error does not say ${JSON.stringify(hint)}:\n${errors.get(line)}`)
}
for (const [line, text] of errors) if (!expected.has(line)) wrong.push(`line ${line}: unexpected error:\n${text}`)
if (wrong.length > 0 || r.status === null) {
  console.error(`${misuse}/uncalled.cts:\n${wrong.join('\n')}${r.stderr}`)
  process.exit(1)
}
