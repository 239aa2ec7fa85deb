'use strict'
// Another process holding a SQLite file's write lock: the sqlite3 command in
// BEGIN IMMEDIATE, until `release()` commits (or `kill()` ends it).

const { spawn } = require('node:child_process')

/** Resolves once the lock is held; rejects (the process killed) if it cannot be. */
async function holdWriteLock(db) {
  const holder = spawn('sqlite3', [db], { stdio: ['pipe', 'pipe', 'inherit'] })
  const exited = new Promise((r) => holder.on('exit', r))
  const kill = async () => {
    holder.kill('SIGKILL')
    await exited
  }
  try {
    await new Promise((resolve, reject) => {
      holder.on('error', (e) => reject(e.code === 'ENOENT' ? new Error('this test needs the sqlite3 command (apt-get install sqlite3)') : e))
      holder.stdout.on('data', (d) => String(d).includes('locked') && resolve())
      holder.stdin.write("BEGIN IMMEDIATE;\nSELECT 'locked';\n")
    })
  } catch (e) {
    await kill()
    throw e
  }
  const release = async () => {
    holder.stdin.write('COMMIT;\n.quit\n')
    await exited
  }
  return { release, kill }
}

module.exports = { holdWriteLock }
