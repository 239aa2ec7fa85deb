'use strict'
// Messages that say the cause and the fix: a programmer's mistake is a
// TypeError naming the call (no ledger, a Ledger.open() Promise without its
// await), a closed ledger is an answer the model can read, a store that
// cannot be opened says why in the user's terms (a folder that does not
// exist, a port where something else than Redis listens), and npm install in
// a checkout without Rust says what to install.

const fs = require('node:fs')
const net = require('node:net')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { Ledger, recall } = require('..')
const { toolMemoryMiddleware, toolMemoryPreModelHook, createRecallToolResultTool, compactToolMessages } = require('../langchain')

const AWAIT = /ledger is a Promise, not a Ledger \(a missing await\?\): const ledger = await Ledger\.open\(options\)$/

describe('recall', () => {
  test('with no ledger is a TypeError: the caller passed the wrong value, the model did nothing wrong', async () => {
    for (const [ledger, got] of [[null, 'null'], [undefined, 'undefined'], [{}, null]]) {
      const p = recall(ledger, 'trm_000000000000')
      await expect(p).rejects.toThrow(TypeError)
      await expect(p).rejects.toThrow(/^recall\(ledger, memId, options\): ledger must be a Ledger or an object with fetch\(\)/)
      if (got) await expect(p).rejects.toThrow(`(got ${got})`)
    }
  })

  test('on a closed ledger answers the model, saying the ledger is closed', async () => {
    const ledger = new Ledger()
    const { memId } = await ledger.record({ toolCallId: 'c1', toolName: 'read', content: 'x'.repeat(5000) })
    expect(await recall(ledger, memId, { format: 'full' })).toBe('x'.repeat(5000))
    await ledger.close()
    expect(await recall(ledger, memId)).toBe(`[tool_memory error: ${memId} cannot be recalled: the ledger is closed]`)
    expect(await createRecallToolResultTool(ledger).invoke({ mem_id: memId })).toBe(`[tool_memory error: ${memId} cannot be recalled: the ledger is closed]`)
  })

  test('a ledger written in JS that throws is still the generic answer', async () => {
    const broken = { fetch: () => Promise.reject(new Error('disk on fire')) }
    expect(await recall(broken, 'trm_000000000000')).toBe('[tool_memory error: ledger fetch failed for trm_000000000000]')
  })

  test('a ledger written in JS answers a miss, a closed ledger and a failure in the native ledger\'s words', async () => {
    const native = new Ledger()
    const missing = { fetch: async () => null }
    for (const [id, ns] of [['trm_000000000000', 'thread-b'], ['trm_t', undefined], ['x'.repeat(300), 'n'.repeat(300)]]) {
      expect(await recall(missing, id, { namespace: ns })).toBe(await recall(native, id, { namespace: ns }))
    }
    expect(await recall(missing, 'trm_t')).toMatch(/^\[tool_memory not found: trm_t in the default namespace; an id is trm_ and 12 hex digits/)
    const closed = { fetch: () => Promise.reject(Object.assign(new Error('closed'), { code: 'ERR_SYMFONIC_CLOSED' })) }
    expect(await recall(closed, 'x'.repeat(300))).toBe(`[tool_memory error: ${'x'.repeat(197)}... cannot be recalled: the ledger is closed]`)
    const broken = { fetch: () => Promise.reject(new Error('disk on fire')) }
    expect(await recall(broken, 'y'.repeat(300))).toBe(`[tool_memory error: ledger fetch failed for ${'y'.repeat(197)}...]`)
    // The recall tool's own last resort has the same words.
    const tool = createRecallToolResultTool({ fetch: async () => 'x', handle: async () => ({}) }, { namespace: () => { throw new Error('no thread') } })
    expect(await tool.invoke({ mem_id: 'y'.repeat(300) })).toBe(`[tool_memory error: ledger fetch failed for ${'y'.repeat(197)}...]`)
  })
})

describe('a Ledger.open() Promise passed without await', () => {
  const pending = () => {
    const p = Ledger.open()
    p.then((l) => l.close())
    return p
  }

  test('says it is a Promise, in every call that takes a ledger', async () => {
    await expect(recall(pending(), 'trm_000000000000')).rejects.toThrow(new RegExp(`^recall\\(ledger, memId, options\\): ${AWAIT.source}`))
    expect(() => toolMemoryMiddleware({ ledger: pending() })).toThrow(new RegExp(`^toolMemoryMiddleware\\(options\\): ${AWAIT.source}`))
    expect(() => toolMemoryPreModelHook({ ledger: pending() })).toThrow(new RegExp(`^toolMemoryPreModelHook\\(options\\): ${AWAIT.source}`))
    expect(() => createRecallToolResultTool(pending())).toThrow(new RegExp(`^createRecallToolResultTool\\(ledger, options\\): ${AWAIT.source}`))
    await expect(compactToolMessages([], pending())).rejects.toThrow(AWAIT)
  })

  test('awaited, it works', async () => {
    const ledger = await Ledger.open()
    expect(() => toolMemoryMiddleware({ ledger })).not.toThrow()
    await ledger.close()
  })
})

describe('a store that cannot be opened says why', () => {
  test('a SQLite file in a folder that does not exist: the folder, and how to create it', async () => {
    const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'symfonic-msg-')), 'no', 'such')
    const file = path.join(dir, 'ledger.db')
    const want = `ERR_SYMFONIC_STORE: store open failed: sqlite:${file}: the folder ${dir} does not exist: create it first (fs.mkdirSync(${JSON.stringify(dir)}, { recursive: true })), or name a file in a folder that exists`
    await expect(Ledger.open({ store: `sqlite:${file}` })).rejects.toMatchObject({ code: 'ERR_SYMFONIC_STORE', message: want })
    // Created as it says, the same store opens.
    fs.mkdirSync(dir, { recursive: true })
    const ledger = await Ledger.open({ store: `sqlite:${file}` })
    await ledger.close()
    fs.rmSync(path.dirname(path.dirname(dir)), { recursive: true, force: true })
  })

  test('a Redis URL at a port where another kind of server answers: not the Redis protocol, check the host and port', async () => {
    const server = net.createServer((s) => s.on('data', () => s.end('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n')))
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address()
    try {
      const p = Ledger.open({ store: `redis://127.0.0.1:${port}/0`, timeoutMs: 3000 })
      await expect(p).rejects.toMatchObject({
        code: 'ERR_SYMFONIC_STORE',
        message: `ERR_SYMFONIC_STORE: store open failed: redis://127.0.0.1:${port}/0: the server at this address answered, but not in the Redis protocol: check the URL's host and port (Redis listens on 6379 unless configured otherwise)`,
      })
    } finally {
      server.close()
    }
  })

  test('a SQLite path that names a folder: name a file in it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'symfonic-msg-'))
    try {
      const want = `ERR_SYMFONIC_STORE: store open failed: sqlite:${dir}: ${dir} is a folder: name a file in it (such as ${dir}/ledger.db)`
      await expect(Ledger.open({ store: `sqlite:${dir}` })).rejects.toMatchObject({ code: 'ERR_SYMFONIC_STORE', message: want })
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  test('a Redis URL at a port where the server resets the connection: not Redis or refused, check the host, port and TLS', async () => {
    const server = net.createServer((s) => s.resetAndDestroy())
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address()
    try {
      const p = Ledger.open({ store: `redis://127.0.0.1:${port}/0`, timeoutMs: 3000 })
      await expect(p).rejects.toMatchObject({
        code: 'ERR_SYMFONIC_STORE',
        message: `ERR_SYMFONIC_STORE: store open failed: redis://127.0.0.1:${port}/0: the server at this address closed the connection: it is not a Redis server, or it refused this client (check the URL's host, port and TLS: rediss:// for a server that wants TLS)`,
      })
    } finally {
      server.close()
    }
  })
})

describe('npm install in a checkout without Rust', () => {
  test('prepare ends in one paragraph saying what to install, not a stack trace', () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'symfonic-nocargo-'))
    try {
      const r = spawnSync(process.execPath, [path.join(__dirname, '..', 'scripts', 'prepare.js')], { env: { PATH: empty }, encoding: 'utf8' })
      expect(r.status).toBe(1)
      expect(r.stdout).toBe('')
      expect(r.stderr).toMatch(/^@symfonic\/core: npm install in a checkout builds the native addon from its Rust source, and cargo is not on the PATH\.\n/)
      expect(r.stderr).toContain('Install a Rust toolchain (https://rustup.rs')
      expect(r.stderr).toContain('sudo apt-get install build-essential')
      expect(r.stderr).toContain('then run npm install again.')
      expect(r.stderr).not.toMatch(/\n\s+at |Error|cargo metadata/)
      expect(r.stderr.trim().split('\n').length).toBeLessThanOrEqual(8)
    } finally {
      fs.rmSync(empty, { recursive: true, force: true })
    }
  })
})
