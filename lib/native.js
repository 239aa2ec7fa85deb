'use strict'
// Loads the native addon (the generated binding.js) and, when no binary
// loads, throws an error a user can act on: the platform and ABI looked for,
// the package that should have provided it, the fix (for a copy installed
// from the registry, or for a checkout or local tarball before the first
// release), and the override variable; napi-rs's own errors stay in `cause`.

// glibc or musl, told apart the way napi-rs's loader does first (Node's report).
function libcFamily() {
  try {
    const report = typeof process.report?.getReport === 'function' ? process.report.getReport() : null
    return report && report.header && report.header.glibcVersionRuntime ? 'gnu' : 'musl'
  } catch {
    return 'gnu'
  }
}

/** The napi-rs platform triple of this process, e.g. `linux-x64-gnu`, `darwin-arm64`, `win32-x64-msvc`. */
function platformTriple() {
  const { platform, arch } = process
  if (platform === 'linux') return `linux-${arch}-${libcFamily()}`
  if (platform === 'win32') return `win32-${arch}-msvc`
  return `${platform}-${arch}`
}

// Published packages list their platform packages as optionalDependencies
// (`napi prepublish` adds them); a checkout or a local tarball does not.
function published() {
  try {
    return Object.keys(require('../package.json').optionalDependencies ?? {}).length > 0
  } catch {
    return false
  }
}

function loadError(cause) {
  const triple = platformTriple()
  const pkg = `@symfonic/core-${triple}`
  const binary = `symfonic-core.${triple}.node`
  const listed = published() && Object.hasOwn(require('../package.json').optionalDependencies, pkg)
  const version = require('../package.json').version
  const fix = !published()
    ? [
        `This copy is a checkout or a local tarball, not the package from the npm registry, so no platform package comes with it.`,
        `In a checkout: npm install builds ${binary} (with a Rust toolchain; npm run build rebuilds it).`,
        `In an app, before the first release: install both tarballs that npm run pack:local writes in a checkout that has built it,`,
        `npm install <checkout>/pack/symfonic-core-${version}.tgz <checkout>/pack/symfonic-core-${triple}-${version}.tgz;`,
        `from the first release on: npm install @symfonic/core (docs/install.md).`,
      ]
    : listed
      ? [
          `Fix: install again without omitting optional dependencies (npm install --include=optional @symfonic/core);`,
          `with a lockfile made on another platform, delete it and node_modules first.`,
        ]
      : [`There is no prebuilt binary for ${triple}: build from source with a Rust toolchain (git clone, then npm install; docs/install.md).`]
  const error = new Error(
    [
      `@symfonic/core: no native binary loads on this platform (${triple}, Node ${process.version}, N-API ${process.versions.napi}).`,
      `It looked for the optional dependency ${pkg} and for ${binary} beside the package.`,
      ...fix,
      `To load a binary from elsewhere, set NAPI_RS_NATIVE_LIBRARY_PATH to its path.`,
    ].join('\n'),
  )
  error.code = 'ERR_SYMFONIC_NATIVE_BINDING'
  error.cause = cause
  return error
}

let binding
try {
  binding = require('../binding.js')
} catch (cause) {
  throw loadError(cause)
}

module.exports = binding
