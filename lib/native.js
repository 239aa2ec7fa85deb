'use strict'
// Loads the native addon (the generated binding.js) and, when no binary
// loads, throws an error a user can act on: the platform and ABI looked for,
// the package that should have provided it, the one-line fix, and the
// override variable; napi-rs's own errors stay in `cause`.

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

function loadError(cause) {
  const triple = platformTriple()
  const pkg = `@symfonic/core-${triple}`
  const error = new Error(
    [
      `@symfonic/core: no native binary loads on this platform (${triple}, Node ${process.version}, N-API ${process.versions.napi}).`,
      `It looked for the optional dependency ${pkg} and for symfonic-core.${triple}.node beside the package.`,
      `Fix: reinstall without omitting optional dependencies (npm install --include=optional @symfonic/core),`,
      `or build from source with a Rust toolchain (git clone, then npm install).`,
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
