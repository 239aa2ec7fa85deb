'use strict'
// Issue 11: a payload crosses once (a string as its UTF-16 units, copied when
// its record starts; a Buffer read where it is settled) and is transcoded off
// the JS thread. Whatever form one payload
// takes — an ASCII or Latin-1 string V8 holds as one-byte, the same text held
// as two-byte, a Buffer of its UTF-8 — its id and every answer are the same,
// async or sync, for small payloads and for 5 MB ones. Equality only: timing
// is measured by `npm run bench -- ledger`, never asserted.

const { Ledger, memIdFor, recall } = require('..')
const { catalog } = require('../benchmark/catalogs')

// V8 picks a string's representation; these helpers steer it. A substring of
// a two-byte string is a sliced two-byte string whatever its characters, and
// a string decoded from Latin-1 bytes is one-byte. (Verified once with
// `node --allow-natives-syntax` and %DebugPrint; N-API cannot tell, so the
// addon must not care, which is what this file checks.)
const twoByte = (s) => ('\u2014' + s).slice(1)
const oneByte = (s) => Buffer.from(s, 'latin1').toString('latin1')

/** The forms of one payload: every string representation it can have, and its UTF-8 Buffer. */
function forms(s, { latin1 }) {
  const out = { string: s, twoByte: twoByte(s), buffer: Buffer.from(s, 'utf8') }
  if (latin1) out.oneByte = oneByte(s)
  return out
}

/** Answers of one recorded payload: full text, a range, a query window, a JSON path. */
async function answers(ledger, memId, { query, jsonPath, offset }) {
  return [
    ledger.fetchSync(memId, { format: 'full' }),
    ledger.fetchSync(memId, { offset, maxChars: 37 }),
    ledger.fetchSync(memId, { query }),
    ledger.fetchSync(memId, { jsonPath }),
    await ledger.stub(memId),
  ]
}

/** Records every form (async and sync) and checks ids, sizes and answers agree. */
async function expectSameEverywhere(s, opts) {
  const seen = []
  for (const [name, content] of Object.entries(forms(s, opts))) {
    const a = new Ledger()
    const h = await a.record({ toolCallId: 'call_x', toolName: 'feed', content })
    const b = new Ledger()
    const hs = b.recordSync({ toolCallId: 'call_x', toolName: 'feed', content })
    expect(hs).toEqual(h)
    expect(memIdFor('call_x', content)).toBe(h.memId)
    const got = await answers(a, h.memId, opts)
    // Whole-payload comparisons stay booleans: a 5 MB diff helps no one.
    expect(got[0] === s).toBe(true)
    expect(await answers(b, h.memId, opts)).toEqual(got)
    expect(await a.fetch(h.memId, { format: 'full' }) === s).toBe(true)
    expect(await recall(a, h.memId, { jsonPath: opts.jsonPath })).toBe(got[3])
    seen.push({ name, h, got })
  }
  const [first, ...rest] = seen
  expect(first.h.sizeChars).toBe(Array.from(s).length)
  for (const other of rest) {
    expect({ form: other.name, h: other.h }).toEqual({ form: other.name, h: first.h })
    expect(other.got.slice(1)).toEqual(first.got.slice(1))
  }
  return first.h
}

const doc = (title) =>
  JSON.stringify({ meta: { count: 3 }, rows: [1, 2, 3].map((i) => ({ id: i, title: `${title} ${i}`, tags: ['a', 'b'] })) })

describe('one small payload, every form', () => {
  const CASES = [
    ['ASCII', doc('Stainless steel widget'), true, 'widget 2'],
    ['Latin-1 (one-byte in V8)', doc('Crème brûlée ÀÉÎÕÜ ÿ café'), true, 'ÿ café 2'],
    ['CJK and emoji (two-byte only)', doc('不锈钢保温杯 🔥 限时特价 😀'), false, '😀 2'],
    ['BOM, NUL and U+FFFD are content', doc('\uFEFFhead\u0000mid\uFFFDtail'), false, 'mid\uFFFDtail 2'],
  ]
  test.each(CASES)('%s', async (_name, s, latin1, query) => {
    await expectSameEverywhere(s, { latin1, query, jsonPath: 'rows[1].title', offset: 11 })
  })

  test('ids pinned before this change are unchanged for every form', async () => {
    // From __test__/lossless.test.js (computed before lossless text).
    const pinned = [
      ['call_ascii', 'plain ASCII payload {"a":1}', 'trm_1b3e58a44d5b'],
      ['call_latin1', 'café crème brûlée ÀÉÎÕÜ ÿ', 'trm_dd633e0e2305'],
      ['call_cjk', '日本語のテキスト 中文 한국어', 'trm_01b77a4efe2f'],
    ]
    for (const [call, s, id] of pinned) {
      for (const content of [s, twoByte(s), oneByte(s), Buffer.from(s)].slice(0, call === 'call_cjk' ? 2 : 4)) {
        expect(memIdFor(call, content)).toBe(id)
        expect((await new Ledger().record({ toolCallId: call, toolName: 't', content })).memId).toBe(id)
      }
    }
  })

  test('the empty payload', async () => {
    const ids = await Promise.all(
      ['', twoByte(''), Buffer.alloc(0)].map((content) => new Ledger().record({ toolCallId: 'c', toolName: 't', content })),
    )
    expect(new Set(ids.map((h) => h.memId)).size).toBe(1)
    expect(ids[0].sizeChars).toBe(0)
  })
})

describe('5 MB payloads, every form', () => {
  // Latin-1 without '—' is one-byte in V8; the catalog with '—' is two-byte.
  const KINDS = [
    ['ascii', catalog('ascii'), true, 'model 12345,'],
    ['latin1 one-byte', catalog('latin1').replaceAll('—', '-'), true, 'édition 4321,'],
    ['latin1 with a dash', catalog('latin1'), false, 'édition 4321,'],
    ['cjk', catalog('cjk'), false, '限时特价 😀 3 件装'],
  ]
  test.each(KINDS)('%s', async (_kind, s, latin1, query) => {
    const h = await expectSameEverywhere(s, { latin1, query, jsonPath: 'rows[4321].title', offset: 4_000_017 })
    expect(h.sizeChars).toBeGreaterThan(4_000_000)
  })

  test('a 5 MB string with lone surrogates stays exact and distinct', async () => {
    const base = catalog('cjk')
    const at = [0, 65_536, 2_000_001, base.length - 1]
    let lone = base
    for (const i of at) lone = lone.slice(0, i) + '\uD800' + lone.slice(i + 1)
    const replaced = lone.replaceAll('\uD800', '\uFFFD')
    const l = new Ledger()
    const h = await l.record({ toolCallId: 'c', toolName: 't', content: lone })
    const hr = await l.record({ toolCallId: 'c', toolName: 't', content: replaced })
    expect(h.memId).not.toBe(hr.memId)
    expect(h.memId).toBe(memIdFor('c', lone))
    expect(h.sizeChars).toBe(Array.from(lone).length)
    expect((await l.fetch(h.memId, { format: 'full' })) === lone).toBe(true)
    expect(l.fetchSync(h.memId, { offset: 65_535, maxChars: 3 })).toBe(Array.from(lone).slice(65_535, 65_538).join(''))
    expect(l.recordSync({ toolCallId: 'c', toolName: 't', content: lone }).memId).toBe(h.memId)
  })
})

describe('Buffers', () => {
  test('invalid UTF-8 keeps its U+FFFD text and its id', async () => {
    const bad = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xe6, 0x97, 0x22, 0x7d, 0xed, 0xa0, 0x80])
    const text = bad.toString('utf8')
    expect(text).toContain('\uFFFD')
    const l = new Ledger()
    const h = await l.record({ toolCallId: 'c', toolName: 't', content: bad })
    expect(h.memId).toBe(memIdFor('c', text))
    expect(h.memId).toBe(memIdFor('c', bad))
    expect(await l.fetch(h.memId, { format: 'full' })).toBe(text)
  })

  // A short Buffer is copied at the call; a long one is read over the next
  // turns and must not change until its record settles (see the next block).
  test('a short Buffer changed after record() returns does not change what was recorded', async () => {
    const buf = Buffer.from('{"k":"before"}')
    const l = new Ledger()
    const p = l.record({ toolCallId: 'c', toolName: 't', content: buf })
    buf.write('{"k":"AFTER!"}')
    const h = await p
    expect(await l.fetch(h.memId, { format: 'full' })).toBe('{"k":"before"}')
  })
})

describe('long strings', () => {
  const MB = 1 << 20
  // Text with surrogate pairs and lone surrogates throughout, past any
  // block or chunk size the transcoder uses.
  function edgy(parts, lone) {
    const out = []
    for (let k = 1; k <= parts; k++) out.push('é'.repeat(MB / 4 - 1 - (k % 3)), lone && k % 2 ? '\uD800' : '😀')
    out.push('tail ☃')
    return out.join('')
  }

  test.each([
    ['surrogate pairs', false],
    ['lone surrogates', true],
  ])('with %s, recorded beside another: the same id, text and answers as recordSync', async (_, lone) => {
    const s = edgy(8, lone)
    const l = new Ledger({ maxBytes: 2 ** 30 })
    const first = l.record({ toolCallId: 'first', toolName: 't', content: s + '!' })
    const h = await l.record({ toolCallId: 'c', toolName: 't', content: s })
    const w = new Ledger({ maxBytes: 2 ** 30 }).recordSync({ toolCallId: 'c', toolName: 't', content: s })
    expect((await first).memId).toBe(memIdFor('first', s + '!'))
    expect(h).toEqual(w)
    expect(h.memId).toBe(memIdFor('c', s))
    expect(h.sizeChars).toBe(Array.from(s).length)
    expect((await l.fetch(h.memId, { format: 'full' })) === s).toBe(true)
    const cp = Array.from(s)
    for (const o of [MB / 4 - 2, MB - 3, 3 * (MB / 4) + 1]) {
      expect(await l.fetch(h.memId, { offset: o, maxChars: 4 })).toBe(cp.slice(o, o + 4).join(''))
    }
  })

  test('concurrent long records each get their own payload, in any order of completion', async () => {
    const l = new Ledger({ maxBytes: 2 ** 30 })
    const strings = Array.from({ length: 6 }, (_, i) => `${i}:` + 'x'.repeat((MB / 4) * (1 + (i % 3))) + '日本'.repeat(i + 1))
    const handles = await Promise.all(strings.map((content, i) => l.record({ toolCallId: `c${i}`, toolName: 't', content })))
    handles.forEach((h, i) => expect(h.memId).toBe(memIdFor(`c${i}`, strings[i])))
    for (let i = 0; i < strings.length; i++) {
      expect(await l.fetch(handles[i].memId, { format: 'full' })).toBe(strings[i])
    }
    expect(l.stats().entries).toBe(strings.length)
  })

  // Records in flight are bounded by bytes (lib/in-flight.js): records that
  // fail natively must each give their turn back, or the records after them
  // would never start.
  test('records that fail after crossing give their turn back to the ones queued behind them', async () => {
    const l = new Ledger({ maxBytes: 64 * MB })
    const n = require('node:os').availableParallelism() + 2
    const tooLong = 'n'.repeat(1025) // the native side allows 1024 code points
    const failing = Array.from({ length: n }, (_, i) =>
      l.record({ toolCallId: `f${i}`, toolName: 't', content: 'y'.repeat(4 * MB), namespace: tooLong }),
    )
    const good = 'g'.repeat(4 * MB) + '✓'
    const after = l.record({ toolCallId: 'ok', toolName: 't', content: good })
    const settled = await Promise.allSettled(failing)
    expect(settled.map((s) => s.status)).toEqual(Array(n).fill('rejected'))
    expect(settled[0].reason.message).toMatch(/namespace/)
    const h = await after
    expect(h.memId).toBe(memIdFor('ok', good))
    expect(l.stats().entries).toBe(1)
  })

  test('a namespace error still rejects, before anything crosses', async () => {
    const l = new Ledger()
    await expect(l.record({ toolCallId: 'c', toolName: 't', content: 'z'.repeat(MB), namespace: '\uD800' })).rejects.toThrow(TypeError)
  })
})

describe('long Buffers', () => {
  const SLICE = 1 << 19
  // Bytes with UTF-8 sequences and invalid bytes (a stray 0xFF, a sequence
  // cut short) at 512 KiB edges, each invalid one replaced with U+FFFD
  // exactly once.
  function edgy(invalid) {
    const parts = []
    const seqs = [Buffer.from('😀'), Buffer.from('日'), invalid ? Buffer.from([0xe6, 0x97]) : Buffer.from('é'), invalid ? Buffer.from([0xff]) : Buffer.from('x')]
    for (let k = 0; k < seqs.length; k++) {
      const seq = seqs[k]
      const cut = k === 3 ? 1 : 1 + (k % (seq.length - 1 || 1)) // bytes of `seq` before the edge
      const used = parts.reduce((n, b) => n + b.length, 0)
      parts.push(Buffer.alloc((k + 1) * SLICE - cut - used, k % 2 ? 0x61 : 0x62), seq)
    }
    parts.push(Buffer.from(' tail ☃'))
    return Buffer.concat(parts)
  }

  test.each([
    ['UTF-8 sequences cut by slice edges', false],
    ['invalid bytes on slice edges', true],
  ])('%s: the same id, text and answers as recordSync and the decoded string', async (_, invalid) => {
    const b = edgy(invalid)
    expect(b.length).toBeGreaterThan(3 * SLICE)
    const text = b.toString('utf8')
    expect(text.includes('\uFFFD')).toBe(invalid)
    const sliced = new Ledger({ maxBytes: 2 ** 30 })
    const h = await sliced.record({ toolCallId: 'c', toolName: 't', content: b })
    const w = new Ledger({ maxBytes: 2 ** 30 }).recordSync({ toolCallId: 'c', toolName: 't', content: b })
    expect(h).toEqual(w)
    expect(h.memId).toBe(memIdFor('c', b))
    expect(h.memId).toBe(memIdFor('c', text))
    expect(h.sizeChars).toBe(Array.from(text).length)
    expect((await sliced.fetch(h.memId, { format: 'full' })) === text).toBe(true)
    const cp = Array.from(text)
    for (const o of [SLICE - 3, 2 * SLICE - 2, 4 * SLICE - 4]) {
      expect(await sliced.fetch(h.memId, { offset: o, maxChars: 5 })).toBe(cp.slice(o, o + 5).join(''))
    }
  })

  test('a Uint8Array view crosses as the bytes it shows, not its whole ArrayBuffer', async () => {
    const whole = Buffer.from('[' + '"ab",'.repeat(3 * SLICE) + '"z"]')
    const view = new Uint8Array(whole.buffer, whole.byteOffset + 1, whole.length - 2) // drops the brackets
    const l = new Ledger({ maxBytes: 2 ** 30 })
    const h = await l.record({ toolCallId: 'v', toolName: 't', content: view })
    expect(h.memId).toBe(memIdFor('v', whole.subarray(1, -1)))
    expect(h.sizeChars).toBe(whole.length - 2)
  })

  test('long Buffers and strings recorded together each get their own payload', async () => {
    const l = new Ledger({ maxBytes: 2 ** 30 })
    const payloads = Array.from({ length: 6 }, (_, i) => {
      const s = `${i}:` + 'é'.repeat(SLICE * (1 + (i % 2))) + '日本'.repeat(i + 1)
      return i % 2 ? Buffer.from(s) : s
    })
    const handles = await Promise.all(payloads.map((content, i) => l.record({ toolCallId: `c${i}`, toolName: 't', content })))
    for (let i = 0; i < payloads.length; i++) {
      expect(handles[i].memId).toBe(memIdFor(`c${i}`, payloads[i]))
      expect((await l.fetch(handles[i].memId, { format: 'full' })) === payloads[i].toString()).toBe(true)
    }
    expect(l.stats().entries).toBe(payloads.length)
  })
})

describe("a Buffer's thread ends while its record reads it", () => {
  // V8 frees a Buffer when its thread's env ends, whatever holds it; the
  // reads in progress must finish first, or the process crashes (SIGSEGV).
  const { spawnSync } = require('node:child_process')
  const fs = require('node:fs')
  const os = require('node:os')
  const path = require('node:path')
  const child = path.join(__dirname, 'support', 'teardown-child.js')

  test.each([
    ['a worker thread terminated mid-record', 'worker'],
    ['the process exiting while a timed-out record still reads', 'exit'],
  ])('%s', (_, mode) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'symfonic-teardown-'))
    try {
      const r = spawnSync(process.execPath, [child, mode, dir], { encoding: 'utf8', timeout: 60000 })
      expect({ signal: r.signal, status: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({ signal: null, status: 0, stdout: 'ended\n', stderr: '' })
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }, 90000)
})
