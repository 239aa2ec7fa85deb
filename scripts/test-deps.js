'use strict'
// `pretest`: the test suite uses two real servers' binaries from Debian:
// `sqlite3` (the store tests inspect the database file) and `redis-server`
// (the Redis store tests start their own servers on 127.0.0.1). When one is
// missing and this is a Debian machine where we are root (as every machine
// of this project is), install it with apt-get; otherwise say what to install.

const { execFileSync, spawnSync } = require('node:child_process')

const has = (bin) => spawnSync('sh', ['-c', `command -v ${bin}`], { stdio: 'ignore' }).status === 0
const missing = [
  ['sqlite3', 'sqlite3'],
  ['redis-server', 'redis-server'],
].filter(([bin]) => !has(bin))

if (missing.length > 0) {
  const pkgs = missing.map(([, pkg]) => pkg)
  const root = typeof process.getuid === 'function' && process.getuid() === 0
  if (root && has('apt-get')) {
    console.log(`pretest: installing ${pkgs.join(' ')} (Debian packages the tests use)`)
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' })
    execFileSync('apt-get', ['install', '-y', '-qq', ...pkgs], { stdio: 'inherit' })
  } else {
    console.error(`pretest: the tests need ${pkgs.join(' and ')} on the PATH (Debian/Ubuntu: sudo apt-get install ${pkgs.join(' ')}; macOS: brew install ${pkgs.map((p) => (p === 'redis-server' ? 'redis' : p)).join(' ')})`)
    process.exit(1)
  }
}
