'use strict'
// Non-test line counts of the Rust and JS sides, at a git ref (default: the
// work tree), as docs/architecture.md reports them.
//   Rust: *.rs under src/ and crates/*/src/, test files left out
//         (tests.rs, *_tests.rs, proptests.rs, testing.rs, tests/);
//   JS:   the shipped runtime: index.js, index.mjs, lib/**/*.js, core/**/*.js, langchain/**/*.js, ai-sdk/**/*.js.
//   binding: the Rust of src/ alone (the napi crate), test files left out.
// Usage: node scripts/loc.js [ref]
// The second line it prints is the row of docs/architecture.md's size table,
// to paste over the last row when the code changes.

const { execFileSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')

const root = path.join(__dirname, '..')
const ref = process.argv[2]
const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 })

const files = ref
  ? git('ls-tree', '-r', '--name-only', ref).split('\n').filter(Boolean)
  : git('ls-files', '--cached', '--others', '--exclude-standard').split('\n').filter((f) => f && fs.existsSync(path.join(root, f)))
const text = (f) => (ref ? git('show', `${ref}:${f}`) : fs.readFileSync(path.join(root, f), 'utf8'))
const lines = (f) => text(f).split('\n').length - 1

const isTest = (f) => /(^|\/)(\w*_)?(tests|proptests|testing)\.rs$/.test(f) || /(^|\/)tests\//.test(f)
const rust = files.filter((f) => /^(src|crates\/[^/]+\/src)\/.*\.rs$/.test(f) && !isTest(f))
const js = files.filter((f) => /^(index\.m?js|lib\/.*\.js|core\/.*\.js|langchain\/.*\.js|ai-sdk\/.*\.js)$/.test(f))
const binding = rust.filter((f) => f.startsWith('src/'))
const sum = (fs) => fs.reduce((n, f) => n + lines(f), 0)
const n = (x) => x.toLocaleString('en-US')
const at = ref ? git('rev-parse', '--short', ref).trim() : git('rev-parse', '--short', 'HEAD').trim()

console.log(`${ref || 'work tree'}: Rust ${sum(rust)} lines in ${rust.length} files; JS ${sum(js)} lines in ${js.length} files; the binding (src/) ${sum(binding)} lines in ${binding.length} files`)
console.log(`| ${ref ? ref : `main now (${at})`} | ${n(sum(rust))} lines in ${rust.length} files | ${n(sum(js))} lines in ${js.length} files | ${n(sum(binding))} lines in ${binding.length} files |`)
