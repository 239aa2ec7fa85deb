'use strict'
// The example server starts by the command its README gives: built with tsc,
// started with node and the offline scripted model, it answers one request
// over HTTP and stops on SIGTERM, closing its ledger.

const fs = require('node:fs')
const path = require('node:path')
const { execFileSync, spawn } = require('node:child_process')

const root = path.join(__dirname, '..')
const example = path.join(root, 'examples', 'agent-server')
const readme = fs.readFileSync(path.join(example, 'README.md'), 'utf8')

test('the README gives the build and start commands this test runs', () => {
  expect(readme).toContain('npx tsc -p examples/agent-server/tsconfig.build.json\n')
  expect(readme).toContain('MODEL=scripted node examples/agent-server/dist/main.js\n')
})

test('built and started as documented, it answers a request, and stops on SIGTERM', async () => {
  fs.rmSync(path.join(example, 'dist'), { recursive: true, force: true })
  execFileSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'examples/agent-server/tsconfig.build.json'], { cwd: root, stdio: 'pipe' })
  expect(fs.readdirSync(path.join(example, 'dist')).sort()).toEqual(['agent.js', 'main.js', 'scripted-model.js', 'server.js'])

  // Its ledger's default file is in dist/ (ignored by git), not the clone's root.
  const ledgerFile = path.join(example, 'dist', 'ledger.db')
  const inRoot = () => fs.readdirSync(root).filter((f) => f.startsWith('ledger.db'))
  const before = inRoot()
  const env = { ...process.env, MODEL: 'scripted', PORT: '0' }
  delete env.LEDGER_FILE
  const server = spawn(process.execPath, ['examples/agent-server/dist/main.js'], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const exited = new Promise((resolve) => server.on('exit', (code, signal) => resolve({ code, signal })))
  let out = ''
  server.stderr.on('data', (d) => (out += d))
  try {
    const url = await new Promise((resolve, reject) => {
      server.stdout.on('data', (d) => {
        out += d
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+) \(model scripted\)/.exec(out)
        if (m) resolve(m[1])
      })
      exited.then(() => reject(new Error(`the server exited before listening:\n${out}`)))
    })
    const res = await fetch(`${url}/threads/t1/messages`, { method: 'POST', body: JSON.stringify({ content: 'cheapest in garden?' }) })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ reply: 'GAR-0000 at $4.99' })
  } finally {
    server.kill('SIGTERM')
  }
  const { code, signal } = await exited
  if (process.platform !== 'win32') expect({ code, signal }).toEqual({ code: 0, signal: null })
  // The catalog went to the ledger's SQLite file (offload), which outlives the server.
  expect(fs.statSync(ledgerFile).size).toBeGreaterThan(0)
  expect(inRoot()).toEqual(before)
  fs.rmSync(path.join(example, 'dist'), { recursive: true, force: true })
}, 120000)
