'use strict'
// Test files that need a program besides Node say so in a line near their top,
// `// needs: redis-server, redis-cli`. jest.config.js asks `gate()` which of
// them can run here: a file whose program is not on the PATH is left out, and
// `needs-reporter.js` names it, with the install command, at the end of the
// run. Under CI=true a missing program is an error instead, so CI never passes
// with a store untested, unless SYMFONIC_TESTS_WITHOUT names it (a CI machine
// that cannot have it, e.g. redis-server on Windows). Nothing here installs
// anything.

const fs = require('node:fs')
const path = require('node:path')
const { onPath } = require('../../scripts/which.js')

const INSTALL = {
  'redis-server': 'Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis',
  'redis-cli': 'Debian/Ubuntu: sudo apt-get install redis-tools; macOS: brew install redis',
  sqlite3: 'Debian/Ubuntu: sudo apt-get install sqlite3; macOS: brew install sqlite',
  // The tests of internals build the addon with its test hooks (__test__/support/hooks.js).
  cargo: 'a Rust toolchain, as for npm install from a clone: https://rustup.rs',
}

/** The programs each test file under `dirs` declares with `// needs: a, b`. */
function declared(root, dirs = ['__test__']) {
  const out = []
  for (const dir of dirs) {
    for (const name of fs.readdirSync(path.join(root, dir)).sort()) {
      if (!/\.test\.[cm]?[jt]s$/.test(name)) continue
      const head = fs.readFileSync(path.join(root, dir, name), 'utf8').split('\n', 30)
      const line = head.find((l) => l.startsWith('// needs: '))
      if (line) out.push({ file: `${dir}/${name}`, needs: line.slice('// needs: '.length).split(',').map((s) => s.trim()).filter(Boolean) })
    }
  }
  return out
}

/**
 * The test files that cannot run here, each with the programs it misses.
 * Throws under CI (`CI` set and not 'false' or '0'), naming them.
 */
function gate(root, env = process.env) {
  const skipped = []
  for (const { file, needs } of declared(root)) {
    const missing = needs.filter((bin) => !onPath(bin, env.PATH ?? env.Path ?? ''))
    if (missing.length > 0) skipped.push({ file, missing })
  }
  const ci = env.CI !== undefined && env.CI !== '' && env.CI !== 'false' && env.CI !== '0'
  const without = (env.SYMFONIC_TESTS_WITHOUT ?? '').split(',').map((s) => s.trim())
  if (ci && skipped.some((s) => s.missing.some((bin) => !without.includes(bin)))) {
    const error = new Error(`CI=${env.CI}: a program the tests need is missing, which fails the run instead of skipping them (.ci/run installs them).\n${notice(skipped)}`)
    error.stack = error.message
    throw error
  }
  return skipped
}

/** What the user reads: which files did not run, why, and how to run them. */
function notice(skipped) {
  if (skipped.length === 0) return ''
  const bins = [...new Set(skipped.flatMap((s) => s.missing))].sort()
  const lines = [`${skipped.length} test file${skipped.length === 1 ? '' : 's'} not run: ${bins.join(', ')} ${bins.length === 1 ? 'is' : 'are'} not on the PATH.`]
  for (const bin of bins) {
    const files = skipped.filter((s) => s.missing.includes(bin)).map((s) => path.basename(s.file))
    lines.push(`  ${bin} (${INSTALL[bin] ?? 'install it'}): ${files.join(', ')}`)
  }
  lines.push('Install them and run npm test again to run these files too.')
  return lines.join('\n')
}

module.exports = { gate, notice, onPath, declared }
