#!/usr/bin/env node
'use strict'
// The package.json that is published: the repository's, without `prepare`,
// which builds the addon from its Rust source on `npm install` in a checkout
// and must not run (or warn) where the package is installed from a tarball.
// Used by `npm run pack:local` (scripts/pack.js), .ci/consumer.sh and the
// release workflow, which runs `node scripts/manifest.js package.json` before
// `npm publish`: `node scripts/manifest.js <package.json>` rewrites that file.

const fs = require('node:fs')

// Scripts that npm runs when a package is installed or packed.
const INSTALL_TIME = ['prepare', 'preinstall', 'install', 'postinstall', 'prepack', 'postpack']

/** The published form of `pkg` (a copy). */
function publishedManifest(pkg) {
  const out = structuredClone(pkg)
  for (const name of INSTALL_TIME) if (out.scripts) delete out.scripts[name]
  return out
}

if (require.main === module) {
  const file = process.argv[2]
  if (!file) {
    console.error('usage: node scripts/manifest.js <package.json>')
    process.exit(2)
  }
  const pkg = JSON.parse(fs.readFileSync(file, 'utf8'))
  fs.writeFileSync(file, JSON.stringify(publishedManifest(pkg), null, 2) + '\n')
}

module.exports = { publishedManifest, INSTALL_TIME }
