'use strict'
// `npm test` for anyone: a test file that needs a program besides Node
// (`// needs: redis-server` near its top) is left out when the program is not
// on the PATH, and named with the install command at the end of the run;
// under CI=true the run fails instead. (scripts/test-newcomer.sh, run by
// .ci/run, runs the whole `npm test` that way as an unprivileged user.)

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { gate, notice, onPath, declared } = require('./support/needs.js')

const root = path.join(__dirname, '..')
const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'symfonic-needs-'))
afterAll(() => fs.rmSync(empty, { recursive: true, force: true }))

const NEEDS = {
  '__test__/blocks.test.js': ['redis-server'],
  '__test__/bounds.test.js': ['redis-server', 'sqlite3'],
  '__test__/external-memory.test.js': ['cargo'],
  '__test__/reads-beside-records.test.js': ['cargo'],
  '__test__/recall-store-answers.test.js': ['redis-server'],
  '__test__/safety.test.js': ['cargo'],
  '__test__/store-cluster.test.js': ['redis-server', 'redis-cli'],
  '__test__/store-eviction.test.js': ['redis-server'],
  '__test__/store-faults.test.js': ['redis-server', 'sqlite3'],
  '__test__/store-redis.test.js': ['redis-server', 'cargo'],
  '__test__/store-rows.test.js': ['redis-server', 'sqlite3'],
  '__test__/store-sqlite.test.js': ['sqlite3', 'cargo'],
  '__test__/stubs-real.test.js': ['sqlite3', 'cargo'],
}

function listTests(env) {
  return spawnSync(process.execPath, [path.join(root, 'node_modules', 'jest', 'bin', 'jest.js'), '--listTests'], { cwd: root, encoding: 'utf8', env: { HOME: os.homedir(), ...env } })
}

test('every test file that starts redis-server, runs sqlite3 or redis-cli, or builds the test hooks with cargo declares it', () => {
  const uses = {}
  for (const name of fs.readdirSync(__dirname).filter((n) => n.endsWith('.test.js') && n !== path.basename(__filename))) {
    const src = fs.readFileSync(path.join(__dirname, name), 'utf8')
    const bins = []
    if (/startRedis|startCluster/.test(src)) bins.push('redis-server')
    if (/startCluster/.test(src)) bins.push('redis-cli')
    if (/\b(execFileSync|spawn|spawnSync)\('sqlite3'|holdWriteLock\(/.test(src)) bins.push('sqlite3')
    if (/support\/hooks\.js/.test(src)) bins.push('cargo')
    if (bins.length > 0) uses[`__test__/${name}`] = bins.sort()
  }
  const sorted = Object.fromEntries(Object.entries(NEEDS).map(([f, b]) => [f, [...b].sort()]))
  expect(uses).toEqual(sorted)
  expect(Object.fromEntries(declared(root).map((d) => [d.file, d.needs]))).toEqual(NEEDS)
})

test('without the programs, jest leaves out exactly the files that need them, and the notice names them and the fix', () => {
  const r = listTests({ PATH: empty })
  expect(r.status).toBe(0)
  const listed = r.stdout.trim().split('\n').map((f) => path.relative(root, f).split(path.sep).join('/'))
  for (const file of Object.keys(NEEDS)) expect(listed).not.toContain(file)
  expect(listed).toContain('__test__/ledger.test.js')
  expect(listed).toContain('examples/agent-server/server.test.ts')

  const skipped = gate(root, { PATH: empty })
  expect(skipped.map((s) => s.file)).toEqual(Object.keys(NEEDS))
  expect(notice(skipped).split('\n')).toEqual([
    `${Object.keys(NEEDS).length} test files not run: cargo, redis-cli, redis-server, sqlite3 are not on the PATH.`,
    '  cargo (a Rust toolchain, as for npm install from a clone: https://rustup.rs): external-memory.test.js, reads-beside-records.test.js, safety.test.js, store-redis.test.js, store-sqlite.test.js, stubs-real.test.js',
    '  redis-cli (Debian/Ubuntu: sudo apt-get install redis-tools; macOS: brew install redis): store-cluster.test.js',
    '  redis-server (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis): blocks.test.js, bounds.test.js, recall-store-answers.test.js, store-cluster.test.js, store-eviction.test.js, store-faults.test.js, store-redis.test.js, store-rows.test.js',
    '  sqlite3 (Debian/Ubuntu: sudo apt-get install sqlite3; macOS: brew install sqlite): bounds.test.js, store-faults.test.js, store-rows.test.js, store-sqlite.test.js, stubs-real.test.js',
    'Install them and run npm test again to run these files too.',
  ])
})

test('a left-out file named on the command line is named with its missing program, not only "No tests found"', () => {
  const r = spawnSync(process.execPath, [path.join(root, 'node_modules', 'jest', 'bin', 'jest.js'), '__test__/store-eviction.test.js'], {
    cwd: root,
    encoding: 'utf8',
    env: { HOME: os.homedir(), PATH: empty },
  })
  expect(r.stderr).toContain(
    [
      '1 test file not run: redis-server is not on the PATH.',
      '  redis-server (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis): store-eviction.test.js',
      'Install them and run npm test again to run these files too.',
    ].join('\n'),
  )
})

test('under CI a missing program fails the run, naming it', () => {
  const r = listTests({ PATH: empty, CI: 'true' })
  expect(r.status).not.toBe(0)
  expect(r.stderr).toMatch(/CI=true: a program the tests need is missing, which fails the run instead of skipping them \(\.ci\/run installs them\)\.\n\d+ test files not run: cargo, redis-cli, redis-server, sqlite3/)
  expect(() => gate(root, { PATH: empty, CI: 'false' })).not.toThrow()
  // A CI machine that cannot have a program names it; the others still fail the run.
  expect(gate(root, { PATH: empty, CI: 'true', SYMFONIC_TESTS_WITHOUT: 'redis-server,redis-cli,sqlite3,cargo' })).toHaveLength(Object.keys(NEEDS).length)
  expect(() => gate(root, { PATH: empty, CI: 'true', SYMFONIC_TESTS_WITHOUT: 'redis-server,redis-cli' })).toThrow(/sqlite3/)
})

test('with the programs on the PATH nothing is left out', () => {
  const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'symfonic-needs-bin-'))
  try {
    for (const b of ['redis-server', 'redis-cli', 'sqlite3', 'cargo']) fs.writeFileSync(path.join(bin, b), '#!/bin/sh\n', { mode: 0o755 })
    expect(gate(root, { PATH: `${empty}${path.delimiter}${bin}`, CI: 'true' })).toEqual([])
    // Not executable: not a program.
    fs.chmodSync(path.join(bin, 'sqlite3'), 0o644)
    expect(gate(root, { PATH: bin }).map((s) => s.missing)).toEqual([['sqlite3'], ['sqlite3'], ['sqlite3'], ['sqlite3'], ['sqlite3']])
  } finally {
    fs.rmSync(bin, { recursive: true, force: true })
  }
})

test('the PATH lookup is done in JS, with Windows extensions (no shell)', () => {
  const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'symfonic-needs-win-'))
  try {
    fs.writeFileSync(path.join(bin, 'redis-server.EXE'), '')
    expect(onPath('redis-server', bin, 'win32')).toBe(true)
    expect(onPath('sqlite3', bin, 'win32')).toBe(false)
  } finally {
    fs.rmSync(bin, { recursive: true, force: true })
  }
})
