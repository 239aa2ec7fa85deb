#!/usr/bin/env node
'use strict'
// `prepare` (npm install in a checkout): builds the release addon from its
// Rust source (`npm run build`). Without cargo, says in one paragraph what to
// install instead of napi-rs's "cargo metadata failed" and its stack trace.
// The published package has no `prepare` (scripts/manifest.js): apps never build.

const { spawnSync } = require('node:child_process')
const { onPath } = require('./which.js')

if (!onPath('cargo')) {
  process.stderr.write(
    [
      '@symfonic/core: npm install in a checkout builds the native addon from its Rust source, and cargo is not on the PATH.',
      'Install a Rust toolchain (https://rustup.rs, then open a new terminal) and C and C++ compilers',
      '(Debian/Ubuntu: sudo apt-get install build-essential; macOS: xcode-select --install;',
      'Windows: Visual Studio Build Tools with "Desktop development with C++"), then run npm install again.',
      'An app that uses @symfonic/core needs none of this: it installs the package with its prebuilt binary',
      '(docs/install.md).',
    ].join('\n') + '\n',
  )
  process.exit(1)
}

// npm_execpath is npm's own CLI script when npm runs this; `npm` otherwise.
const npm = process.env.npm_execpath
const r = npm ? spawnSync(process.execPath, [npm, 'run', 'build'], { stdio: 'inherit' }) : spawnSync('npm', ['run', 'build'], { stdio: 'inherit', shell: process.platform === 'win32' })
process.exit(r.status ?? 1)
