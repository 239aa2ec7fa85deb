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
