'use strict'
// Lossless text: a JS string with lone surrogates is stored and hashed as
// WTF-8, so it comes back exactly and never shares an id with another string;
// well-formed text keeps its ids byte for byte. Palette names compare exactly.

const { Ledger, memIdFor, recall, StaticPaletteResolver } = require('..')

const rec = (l, content, toolCallId = 'c') => l.recordSync({ toolCallId, toolName: 't', content })

describe('ids of well-formed text are unchanged', () => {
  // Regression pin: these ids were computed with the build *before* lossless
  // text (commit 6dba612) and must never change for well-formed text.
  const PINNED = [
    ['call_ascii', 'plain ASCII payload {"a":1}', 'trm_1b3e58a44d5b'],
    ['call_latin1', 'café crème brûlée ÀÉÎÕÜ ÿ', 'trm_dd633e0e2305'],
    ['call_cjk', '日本語のテキスト 中文 한국어', 'trm_01b77a4efe2f'],
    ['call_emoji', 'emoji 😀🎉👩‍💻 and 🇯🇵', 'trm_1b20debddd46'],
    ['通話_1', 'x é 日 😀', 'trm_df1d6b2c59bb'],
    // A real U+FFFD is well-formed text: its id is the one it always had.
    ['c', 'x\uFFFD', 'trm_f5ef68a2071b'],
  ]
  test.each(PINNED)('%s', (call, content, id) => {
    expect(memIdFor(call, content)).toBe(id)
    expect(memIdFor(call, Buffer.from(content, 'utf8'))).toBe(id)
    expect(rec(new Ledger(), content, call).memId).toBe(id)
  })
})

describe('lone surrogates', () => {
  test('distinct strings get distinct ids and entries', () => {
    const l = new Ledger()
    const strings = ['x\uD800', 'x\uDBFF', 'x\uDFFF', 'x\uFFFD', 'x\uD83D\uDE00', 'x\uDE00\uD83D']
    const ids = strings.map((s) => memIdFor('c', s))
    expect(new Set(ids).size).toBe(strings.length)
    strings.forEach((s, i) => expect(rec(l, s).memId).toBe(ids[i]))
    expect(l.stats().entries).toBe(strings.length)
    strings.forEach((s, i) => expect(l.fetchSync(ids[i], { format: 'full' })).toBe(s))
  })

  test('full fetch and recall return exactly what was recorded', async () => {
    const l = new Ledger()
    const s = 'head \uD800 mid \uDFFF\uD83D\uDE00 tail \uDBFF'
    const h = await l.record({ toolCallId: 'c', toolName: 't', content: s })
    expect(h.sizeChars).toBe(Array.from(s).length)
    expect(await l.fetch(h.memId, { format: 'full' })).toBe(s)
    expect(l.fetchSync(h.memId, { format: 'full' })).toBe(s)
    expect(await recall(l, h.memId, { format: 'full' })).toBe(s)
  })

  test('ranges count a lone surrogate as one code point and keep it as the same unit', async () => {
    const l = new Ledger()
    const s = 'a\uD800😀\uDFFFb'
    const h = rec(l, s)
    const cps = Array.from(s)
    expect(cps).toEqual(['a', '\uD800', '😀', '\uDFFF', 'b'])
    for (let o = 0; o <= cps.length; o++) {
      for (let m = 1; m <= cps.length; m++) {
        expect(l.fetchSync(h.memId, { offset: o, maxChars: m })).toBe(cps.slice(o, o + m).join(''))
      }
    }
    // The output cap never splits a pair; a lone surrogate stays whole.
    const long = '\uD800😀'.repeat(100)
    const hl = rec(l, long, 'long')
    const text = await recall(l, hl.memId, { format: 'full', maxOutputChars: 150 })
    expect(Array.from(text).length).toBeLessThanOrEqual(150)
    const kept = text.split('\n...[')[0]
    expect(kept.length).toBeGreaterThan(0)
    expect(long.startsWith(kept)).toBe(true)
    expect(text).toMatch(new RegExp(`continue with offset=${Array.from(kept).length}]$`))
  })

  test('query windows keep lone surrogates; a lone surrogate query matches only itself', () => {
    const l = new Ledger()
    const s = 'one \uD800 two \uFFFD three 😀 four'
    const h = rec(l, s)
    expect(l.fetchSync(h.memId, { query: '\uD800' })).toBe('(offset 0, line 1)\n' + s)
    expect(l.fetchSync(h.memId, { query: '\uFFFD' })).toBe('(offset 0, line 1)\n' + s)
    // Half of a pair is not a match, and the echo is display text (U+FFFD).
    expect(l.fetchSync(h.memId, { query: '\uD83D' })).toBe(`[recall: no match for query '\uFFFD' in ${h.memId}]`)
    // Case-insensitive fallback over a lossless payload.
    expect(l.fetchSync(h.memId, { query: 'TWO \uFFFD' })).toMatch(/case-insensitive/)
  })

  test('json paths slice the lossless payload', () => {
    const l = new Ledger()
    const s = '{"a":"x\uD800y","b":["\uDFFF",1],"c\uDBFF":2}'
    const h = rec(l, s)
    expect(h.schema).toContain('object')
    expect(l.fetchSync(h.memId, { jsonPath: 'a' })).toBe('"x\uD800y"')
    expect(l.fetchSync(h.memId, { jsonPath: 'b[*]' })).toBe('["\uDFFF",1]')
    expect(l.fetchSync(h.memId, { format: 'full' })).toBe(s)
  })

  test('the stub is display text: a lone surrogate shows as U+FFFD there', () => {
    const l = new Ledger()
    const h = rec(l, 'first \uD800 line\nsecond')
    expect(h.preview).toBe('first \uFFFD line second')
    expect(h.stub).toContain('\npreview: first \uFFFD line second\n')
    expect(h.stub).toBe(h.stub.toWellFormed())
    expect(l.fetchSync(h.memId)).toBe(h.stub)
  })

  test('a Buffer is UTF-8: invalid bytes still become U+FFFD, as documented', () => {
    expect(memIdFor('c', Buffer.from([0x78, 0xff]))).toBe(memIdFor('c', 'x\uFFFD'))
    expect(memIdFor('c', Buffer.from([0x78, 0xff]))).not.toBe(memIdFor('c', 'x\uD800'))
  })
})

describe('palette names compare exactly', () => {
  test('an allowlisted lone surrogate admits only that unit', () => {
    const r = new StaticPaletteResolver({ roleTools: { action: ['x\uDFFF_admin'] } })
    expect(r.allows('action', 'x\uDFFF_admin')).toBe(true)
    expect(r.allows('action', 'x\uD800_admin')).toBe(false)
    expect(r.allows('action', 'x\uFFFD_admin')).toBe(false)
    const tools = ['x\uD800_admin', 'x\uDFFF_admin', 'x\uFFFD_admin'].map((name) => ({ name }))
    expect(r.resolve({}, 'action', tools)).toEqual([tools[1]])
  })

  test('prefix rules compare UTF-16 units, as startsWith does', () => {
    const r = new StaticPaletteResolver({ roleTools: { a: ['x\uD83D*'], b: ['x\uFFFD*'] } })
    expect(r.allows('a', 'x😀')).toBe('x😀'.startsWith('x\uD83D'))
    expect(r.allows('a', 'x\uD83D')).toBe(true)
    expect(r.allows('a', 'x\uD800')).toBe(false)
    expect(r.allows('b', 'x\uD800_tool')).toBe(false)
    expect(r.allows('b', 'x\uFFFD_tool')).toBe(true)
  })
})
