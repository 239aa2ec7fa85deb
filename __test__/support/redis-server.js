'use strict'
// Real redis-server processes for the tests (and the load bench): started on
// free ports of 127.0.0.1, each in a temp dir of its own, and always
// stopped: by the caller's stop(), and by a process 'exit' hook if a test
// failed before it could (CI fails when a redis-server is left running).

const { spawn, execFileSync } = require('node:child_process')
const fs = require('node:fs')
const net = require('node:net')
const os = require('node:os')
const path = require('node:path')

const running = new Set()
process.on('exit', () => {
  for (const p of running) {
    try {
      process.kill(p.pid, 'SIGCONT') // a stopped process must be able to die
      p.kill('SIGKILL')
    } catch {
      // already gone
    }
  }
})

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

// One command over a raw connection (RESP inline): its reply (a status
// line as is, a bulk string's body), or null on no answer within `ms`.
function command(port, line, ms = 500) {
  return new Promise((resolve) => {
    const sock = net.connect({ host: '127.0.0.1', port })
    let buf = ''
    const done = (v) => {
      sock.destroy()
      resolve(v)
    }
    sock.setTimeout(ms, () => done(null))
    sock.on('error', () => done(null))
    sock.on('connect', () => sock.write(line + '\r\n'))
    sock.on('data', (d) => {
      buf += d
      const eol = buf.indexOf('\r\n')
      if (eol < 0) return
      if (buf[0] !== '$') return done(buf)
      const len = Number(buf.slice(1, eol))
      if (len < 0) return done('')
      if (Buffer.byteLength(buf) >= eol + 2 + len + 2) done(buf.slice(eol + 2, eol + 2 + len))
    })
  })
}

async function until(cond, ms, what) {
  const end = Date.now() + ms
  for (;;) {
    if (await cond()) return
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/**
 * A redis-server on a free port (or `port`), with extra `args`
 * (e.g. ['--appendonly', 'yes']); resolves once it answers PING.
 * `dir`: its working directory (AOF and RDB files), kept across restarts.
 */
async function startRedis({ args = [], port, dir } = {}) {
  port = port || (await freePort())
  dir = dir || fs.mkdtempSync(path.join(os.tmpdir(), 'symfonic-redis-'))
  const p = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', ...args], {
    stdio: ['ignore', 'ignore', 'inherit'],
    cwd: dir,
  })
  running.add(p)
  const exited = new Promise((resolve) => p.on('exit', resolve))
  exited.then(() => running.delete(p))
  const failed = new Promise((_, reject) =>
    p.on('error', (e) => reject(e.code === 'ENOENT' ? new Error('these tests need redis-server on the PATH (apt-get install redis-server)') : e)),
  )
  await Promise.race([until(async () => (await command(port, 'PING')) === '+PONG\r\n', 10000, `redis-server on ${port}`), failed])
  return {
    port,
    dir,
    pid: p.pid,
    url: `redis://127.0.0.1:${port}/0`,
    /** SIGSTOP: the server hangs (the kernel still accepts connections). */
    pause: () => process.kill(p.pid, 'SIGSTOP'),
    resume: () => process.kill(p.pid, 'SIGCONT'),
    command: (line) => command(port, line),
    /** Stops it (SIGKILL unless `signal`), waiting for it to exit. */
    async stop(signal = 'SIGKILL') {
      if (p.exitCode === null && p.signalCode === null) {
        try {
          process.kill(p.pid, 'SIGCONT')
        } catch {
          // gone already
        }
        p.kill(signal)
      }
      await exited
    },
  }
}

/**
 * A local Redis Cluster: `masters` primaries (and `replicas` replicas of
 * each), made with `redis-cli --cluster create`; resolves once every node
 * reports cluster_state:ok. `stop()` stops every node.
 */
async function startCluster({ masters = 3, replicas = 0, nodeTimeout = 1000 } = {}) {
  const nodes = []
  try {
    for (let i = 0; i < masters * (1 + replicas); i++) {
      nodes.push(await startRedis({ args: ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', String(nodeTimeout)] }))
    }
    const addrs = nodes.map((n) => `127.0.0.1:${n.port}`)
    execFileSync('redis-cli', ['--cluster', 'create', ...addrs, '--cluster-replicas', String(replicas), '--cluster-yes'], { stdio: 'ignore', timeout: 30000 })
    await until(async () => {
      for (const n of nodes) {
        const info = await n.command('CLUSTER INFO')
        if (info === null || !info.includes('cluster_state:ok')) return false
      }
      return true
    }, 20000, 'cluster_state:ok')
    if (replicas > 0) {
      // Every replica synced with its primary (a failover then has the data).
      await until(async () => {
        for (const n of nodes) {
          const info = await n.command('INFO replication')
          if (info === null) return false
          if (info.includes('role:slave') && !info.includes('master_link_status:up')) return false
        }
        return true
      }, 20000, 'replicas in sync')
    }
  } catch (e) {
    await Promise.all(nodes.map((n) => n.stop()))
    throw e
  }
  return {
    nodes,
    urls: nodes.map((n) => n.url),
    /** The nodes that are primaries now. */
    async primaries() {
      const out = []
      for (const n of nodes) {
        const info = await n.command('INFO replication')
        if (info !== null && info.includes('role:master')) out.push(n)
      }
      return out
    },
    /** Resolves once every replica has every write its primary acknowledged. */
    async synced(ms = 10000) {
      await until(async () => {
        for (const n of nodes) {
          const info = await n.command('INFO replication')
          if (info === null) continue // stopped
          if (!info.includes('role:master')) continue
          const offset = Number((/master_repl_offset:(\d+)/.exec(info) || [])[1])
          const replicas = [...info.matchAll(/slave\d+:[^\r\n]*offset=(\d+)/g)].map((m) => Number(m[1]))
          if (replicas.some((r) => r < offset)) return false
        }
        return true
      }, ms, 'replicas caught up')
    },
    stop: () => Promise.all(nodes.map((n) => n.stop())),
  }
}

module.exports = { startRedis, startCluster, freePort }
