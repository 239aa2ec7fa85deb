'use strict'
// needs: cargo
// Hardening of the native layer, through the package entry: stub fields can't
// forge lines, refusals carry a `code`, and a panic in Rust is a JS error
// rather than an abort of the process. The collision and the panic are
// reached through test hooks, in the test build (support/hooks.js).

const { spawnSync } = require('node:child_process')
const path = require('node:path')
const hooks = require('./support/hooks.js')
const { Ledger } = require('..')

const ROOT = path.join(__dirname, '..')
const input = (content, extra = {}) => ({ toolCallId: 'call_1', toolName: 'get_data', content, ...extra })

function thrown(fn) {
  try {
    fn()
  } catch (e) {
    return e
  }
  throw new Error('did not throw')
}

// Line breaks JS and models honour, and the control characters a stub must not hold.
// eslint-disable-next-line no-control-regex
const BREAKING = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/

describe('stub fields stay on their line', () => {
  test('a tool name with a newline cannot add a line', () => {
    const ledger = new Ledger()
    const h = ledger.recordSync(input('payload', { toolName: 'x\nsummary: injected', toolArgs: { 'k\u2028': 'v\u001b' } }))
    const lines = h.stub.split('\n')
    expect(lines).toHaveLength(7)
    expect(lines[1]).toBe('tool=x\\nsummary: injected call_id=call_1')
    expect(lines.filter((l) => l.startsWith('summary: '))).toHaveLength(1)
    expect(h.summary).toBe("x\\nsummary: injected (k\\u{2028}='v\\u{1b}'): text, 1 line")
    for (const line of lines) expect(line).not.toMatch(BREAKING)
    expect(h.toolName).toBe('x\nsummary: injected') // the handle keeps it whole
  })

  test('a 10 MB tool name makes a small stub, cut at 128 code points without splitting a pair', () => {
    const ledger = new Ledger()
    const name = '😀'.repeat(5_000_000) // 10 M UTF-16 units
    const h = ledger.recordSync(input('payload', { toolName: name }))
    expect(h.stub.length).toBeLessThan(2000)
    const shown = h.stub.split('\n')[1].slice('tool='.length).split(' call_id=')[0]
    expect(Array.from(shown)).toHaveLength(128)
    expect(shown).toBe('😀'.repeat(125) + '...')
    expect(h.summary.startsWith('😀'.repeat(125) + '...: ')).toBe(true)
  })

  test('call ids and previews are escaped too; ordinary stubs are unchanged', () => {
    const ledger = new Ledger()
    const h = ledger.recordSync(input('a\tb\u2029c\nd', { toolCallId: 'id\r\nx' }))
    const lines = h.stub.split('\n')
    expect(lines[1]).toBe('tool=get_data call_id=id\\r\\nx')
    // A tab shows as a space in the preview; a line separator as an escape.
    expect(lines).toContain('preview: a b\\u{2029}c d')
    for (const line of lines) expect(line).not.toMatch(BREAKING)
    const plain = ledger.recordSync(input('hello\nworld'))
    expect(plain.stub.split('\n').slice(1, 5)).toEqual([
      'tool=get_data call_id=call_1',
      `mem=${plain.memId} size=11 chars`,
      'summary: get_data: text, 2 lines',
      'schema: text: 2 lines, longest 5 chars',
    ])
  })
})

describe('refusals carry a code', () => {
  test('a mem-id collision is ERR_SYMFONIC_MEM_ID_COLLISION, sync and async', async () => {
    const ledger = new (hooks.load().Ledger)()
    const first = ledger.recordSync(input('one'))
    ledger.__forceMemIdForTest(first.memId)
    expect(ledger.recordSync(input('one'))).toEqual(first) // the same result is still fine
    const e = thrown(() => ledger.recordSync(input('two')))
    // (Native errors come from Node's realm, not jest's sandbox: no instanceof here.)
    expect(Object.prototype.toString.call(e)).toBe('[object Error]')
    expect(e.code).toBe('ERR_SYMFONIC_MEM_ID_COLLISION')
    expect(e.message).toMatch(/^ERR_SYMFONIC_MEM_ID_COLLISION: memory id collision: trm_[0-9a-f]{12} in namespace ''/)
    await expect(ledger.record(input('two'))).rejects.toMatchObject({
      code: 'ERR_SYMFONIC_MEM_ID_COLLISION',
      message: expect.stringContaining('refusing to record'),
    })
    // Never the wrong payload: the first result still answers.
    expect(ledger.fetchSync(first.memId, { format: 'full' })).toBe('one')
    ledger.__forceMemIdForTest(null)
    expect(ledger.recordSync(input('two')).memId).not.toBe(first.memId)
  })

  test('a namespace over 1,024 code points is ERR_SYMFONIC_NAMESPACE_TOO_LONG', async () => {
    const ledger = new Ledger()
    expect(ledger.recordSync(input('x', { namespace: '😀'.repeat(1024) })).namespace).toHaveLength(2048)
    const e = thrown(() => ledger.recordSync(input('x', { namespace: 'n'.repeat(1025) })))
    expect(e.code).toBe('ERR_SYMFONIC_NAMESPACE_TOO_LONG')
    expect(e.message).toContain('namespace is 1025 code points long; at most 1024 are allowed')
    await expect(ledger.record(input('x', { namespace: 'n'.repeat(5000) }))).rejects.toMatchObject({
      code: 'ERR_SYMFONIC_NAMESPACE_TOO_LONG',
    })
    expect(ledger.stats().entries).toBe(1)
  })

  test('a namespace over 1,024 code points never waits its turn behind the records in flight', async () => {
    // A 64 MB record fills the bytes in flight (a quarter of maxBytes); what follows waits, unless refused at once.
    const ledger = new Ledger({ maxBytes: 64 * 2 ** 20 })
    const big = ledger.record(input('b'.repeat(16 * 2 ** 20)))
    const order = []
    const small = ledger.record(input('s'.repeat(5 * 2 ** 20))).then(() => order.push('queued'))
    const long = ledger.record(input('x', { namespace: '😀'.repeat(1025) })).catch((e) => order.push(e.code))
    await Promise.all([big, small, long])
    expect(order).toEqual(['ERR_SYMFONIC_NAMESPACE_TOO_LONG', 'queued'])
  })
})

describe('a panic in Rust', () => {
  // In a child process: it shows the process survives, and keeps Rust's panic
  // report (printed to stderr by the default hook) out of jest's output.
  test('is a JS error, sync and async, and the process carries on', () => {
    const script = `
      const { Ledger } = require('.')
      const ledger = new Ledger()
      const out = {}
      try { ledger.__panicForTest(false) } catch (e) { out.sync = { message: e.message, code: e.code, isError: e instanceof Error } }
      ledger.__panicForTest(true).then(
        () => { out.async = 'resolved' },
        (e) => { out.async = { message: e.message, code: e.code, isError: e instanceof Error } },
      ).then(async () => {
        const h = await ledger.record({ toolCallId: 'c', toolName: 't', content: 'still works' })
        out.after = await ledger.fetch(h.memId, { format: 'full' })
        console.log(JSON.stringify(out))
      })
    `
    const child = spawnSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8', env: hooks.env })
    expect(child.signal).toBeNull()
    expect(child.status).toBe(0)
    const out = JSON.parse(child.stdout)
    expect(out.sync).toEqual({
      message: '@symfonic/core: internal error (panic): deliberate panic for a test (sync)',
      code: 'ERR_SYMFONIC_INTERNAL',
      isError: true,
    })
    expect(out.async).toEqual({
      message: '@symfonic/core: internal error (panic): deliberate panic for a test (async)',
      code: 'ERR_SYMFONIC_INTERNAL',
      isError: true,
    })
    expect(out.after).toBe('still works')
  })
})
