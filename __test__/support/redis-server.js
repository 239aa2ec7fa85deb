'use strict'
// A redis-server child for tests (Debian's `redis-server`, installed by
// .ci/run when absent): on a free port of 127.0.0.1, without persistence,
// killed and waited for by `stop()`.

const { spawn } = require('node:child_process')
const net = require('node:net')
const { until } = require('./wait.js')

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer()
    s.on('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address()
      s.close(() => resolve(port))
    })
  })
}

// One PING over a raw TCP connection: true on +PONG.
function ping(port) {
  return new Promise((resolve) => {
    const sock = net.connect({ host: '127.0.0.1', port })
    let buf = ''
    const done = (ok) => {
      sock.destroy()
      resolve(ok)
    }
    sock.setTimeout(500, () => done(false))
    sock.on('error', () => done(false))
    sock.on('connect', () => sock.write('PING\r\n'))
    sock.on('data', (d) => {
      buf += d
      if (buf.includes('\r\n')) done(buf.startsWith('+PONG'))
    })
  })
}

/** Starts a server on `port` (a free one if absent) and waits until it answers PING. */
async function startRedis({ port, cwd } = {}) {
  port = port || (await freePort())
  const p = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'], {
    stdio: ['ignore', 'ignore', 'inherit'],
    cwd,
  })
  const exited = new Promise((resolve) => p.on('exit', resolve))
  const failed = new Promise((_, reject) =>
    p.on('error', (e) => reject(e.code === 'ENOENT' ? new Error('these tests need redis-server on the PATH (apt-get install redis-server)') : e)),
  )
  await Promise.race([until(() => ping(port), 10000), failed])
  return {
    port,
    url: `redis://127.0.0.1:${port}/0`,
    /** Kills the server and waits for it to exit. */
    async stop() {
      if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL')
      await exited
    },
  }
}

module.exports = { freePort, startRedis }
