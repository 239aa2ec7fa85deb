'use strict'
// The package over a test build of the addon, for the few tests that need a
// hook the release build does not have (`__forceMemIdForTest`, `__holdRecordsForTest`,
// `__panicForTest`, `__rowSealForTest`, `__externalMemoryForTest`; cargo
// feature `test-hooks`). The build is a debug one, made when this module is
// first required (cargo decides what is stale; a no-op build takes about a
// second) and copied to target/test-hooks/.
//   load(): the package over that build, beside the one the test file
//           required (its own module registry);
//   env:    the environment a child process needs to load it.

const fs = require('node:fs')
const path = require('node:path')
const { execFileSync } = require('node:child_process')

const root = path.join(__dirname, '..', '..')
const addon = path.join(root, 'target', 'test-hooks', 'symfonic-core.node')

function build() {
  const out = execFileSync('cargo', ['build', '-p', 'symfonic-core-node', '--features', 'test-hooks', '--message-format=json'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 1 << 26,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const lib = out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l))
    .find((m) => m.reason === 'compiler-artifact' && m.target.name === 'symfonic_core_node' && m.target.kind.includes('cdylib'))
  const built = lib.filenames.find((f) => /\.(so|dylib|dll)$/.test(f))
  fs.mkdirSync(path.dirname(addon), { recursive: true })
  // A new file renamed into place: a process that has the old one loaded keeps it.
  const tmp = `${addon}.${process.pid}`
  fs.copyFileSync(built, tmp)
  fs.renameSync(tmp, addon)
}

build()

/** `{ ...package, binding }` over the test build. */
function load() {
  const before = process.env.NAPI_RS_NATIVE_LIBRARY_PATH
  process.env.NAPI_RS_NATIVE_LIBRARY_PATH = addon
  let out
  try {
    jest.isolateModules(() => {
      out = { ...require('../..'), binding: require('../../lib/native.js') }
    })
  } finally {
    if (before === undefined) delete process.env.NAPI_RS_NATIVE_LIBRARY_PATH
    else process.env.NAPI_RS_NATIVE_LIBRARY_PATH = before
  }
  if (typeof out.binding.Ledger.prototype.__panicForTest !== 'function') throw new Error(`the build at ${addon} has no test hooks`)
  return out
}

module.exports = { load, addon, env: { ...process.env, NAPI_RS_NATIVE_LIBRARY_PATH: addon } }
