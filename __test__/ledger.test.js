'use strict'
// The Ledger contract of issue 2, through the package entry as users load it.

const { execFileSync } = require('node:child_process')
const path = require('node:path')
// The addon's promises come from Node's realm, not jest's sandbox.
const { isPromise } = require('node:util').types
const { Ledger, memIdFor, recall, MAX_OUTPUT_CHARS } = require('..')

const ROOT = path.join(__dirname, '..')
const rec = (ledger, content, extra = {}) =>
  ledger.recordSync({ toolCallId: 'call_1', toolName: 'get_data', content, ...extra })

// Runs a snippet in a fresh Node process (another process, same answers).
function inChild(code) {
  return execFileSync(process.execPath, ['-e', code], { cwd: ROOT, encoding: 'utf8' })
}

describe('loading', () => {
  test('require gives the documented exports', () => {
    const pkg = require('..')
    expect(typeof pkg.Ledger).toBe('function')
    expect(typeof pkg.recall).toBe('function')
    expect(typeof pkg.memIdFor).toBe('function')
    expect(pkg.MAX_OUTPUT_CHARS).toBe(50000)
  })

  test('loads twice under jest.isolateModules and both copies work', () => {
    let a
    let b
    jest.isolateModules(() => {
      a = require('..')
    })
    jest.isolateModules(() => {
      b = require('..')
    })
    expect(a).not.toBe(b)
    const la = new a.Ledger()
    const lb = new b.Ledger()
    const ha = la.recordSync({ toolCallId: 'c', toolName: 't', content: 'same' })
    const hb = lb.recordSync({ toolCallId: 'c', toolName: 't', content: 'same' })
    expect(ha).toEqual(hb)
    expect(la.fetchSync(ha.memId, { format: 'full' })).toBe('same')
  })

  test('ESM named import works', () => {
    const out = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "import { Ledger, recall, MAX_OUTPUT_CHARS } from '@symfonic/core'; const l = new Ledger(); const h = l.recordSync({ toolCallId: 'c', toolName: 't', content: 'esm ok' }); console.log(await recall(l, h.memId, { format: 'full' }), MAX_OUTPUT_CHARS)",
      ],
      { cwd: ROOT, encoding: 'utf8' },
    )
    expect(out.trim()).toBe('esm ok 50000')
  })
})

describe('ids', () => {
  test('trm_ + 12 lowercase hex, equal to what record assigns', () => {
    const l = new Ledger()
    const id = memIdFor('call_1', 'payload')
    expect(id).toMatch(/^trm_[0-9a-f]{12}$/)
    expect(rec(l, 'payload').memId).toBe(id)
  })

  test('a pure function of (toolCallId, content), the same in another process', () => {
    const here = memIdFor('call_42', 'héllo 😀')
    const there = inChild("process.stdout.write(require('.').memIdFor('call_42', 'héllo 😀'))")
    expect(there).toBe(here)
    expect(memIdFor('call_42', Buffer.from('héllo 😀'))).toBe(here)
    expect(memIdFor('call_42', 'héllo 😀!')).not.toBe(here)
    expect(memIdFor('call_43', 'héllo 😀')).not.toBe(here)
  })

  test('a reused toolCallId with other content gets another id; both stay readable', () => {
    const l = new Ledger()
    const a = rec(l, 'first result')
    const b = rec(l, 'second result')
    expect(a.memId).not.toBe(b.memId)
    expect(l.fetchSync(a.memId, { format: 'full' })).toBe('first result')
    expect(l.fetchSync(b.memId, { format: 'full' })).toBe('second result')
  })

  test('recording the same result again returns the identical handle', async () => {
    const l = new Ledger()
    const a = rec(l, 'x'.repeat(10000), { toolArgs: { q: 1 } })
    const b = await l.record({ toolCallId: 'call_1', toolName: 'get_data', toolArgs: { q: 1 }, content: 'x'.repeat(10000) })
    expect(b).toEqual(a)
    expect(l.stats().entries).toBe(1)
  })
})

describe('stub', () => {
  const rows = Array.from({ length: 300 }, (_, i) => ({ asin: `B${i}`, price: i, bsr: i * 2, a: 1, b: 2, c: 3 }))

  test('format v2, line by line', async () => {
    const l = new Ledger()
    const content = 'line one\nline two\nline three\n\tline four'
    const h = l.recordSync({ toolCallId: 'call_9', toolName: 'read_log', toolArgs: { path: '/var/log/x', tail: 3 }, content })
    expect(h.stub.split('\n')).toEqual([
      '[symfonic.tool_memory v2]',
      'tool=read_log call_id=call_9',
      `mem=${h.memId} size=${content.length} chars`,
      "summary: read_log (path='/var/log/x', tail=3): text, 4 lines",
      'schema: text: 4 lines, longest 10 chars',
      'last lines: 2: line two ⏎ 3: line three ⏎ 4: line four',
      'preview: line one line two line three line four',
      `To read more: recall_tool_result(mem_id="${h.memId}", lines="1-4")`,
    ])
    expect(h.schema).toBe('text: 4 lines, longest 10 chars')
    expect(h.summary).toBe("read_log (path='/var/log/x', tail=3): text, 4 lines")
    expect(h.preview).toBe('line one line two line three line four')
    expect(h.sizeChars).toBe(content.length)
    expect(await l.stub(h.memId)).toBe(h.stub)
    expect(await l.handle(h.memId)).toEqual(h)
  })

  test('byte-identical for identical input in another process', () => {
    const input = { toolCallId: 'call_7', toolName: 'catalog', toolArgs: { n: 300 }, content: JSON.stringify(rows) }
    const here = new Ledger().recordSync(input).stub
    const there = inChild(
      `const { Ledger } = require('.'); process.stdout.write(new Ledger().recordSync(${JSON.stringify(input)}).stub)`,
    )
    expect(there).toBe(here)
  })

  test('tabular JSON lists its columns over the rows', () => {
    const h = new Ledger().recordSync({
      toolCallId: 'c',
      toolName: 'get_keepa_data',
      toolArgs: { asin: 'B07XY', domain: 1, x: [1], more: true },
      content: JSON.stringify(rows),
    })
    expect(h.schema).toBe('array[300] of records, 6 columns: asin:str,price:num,bsr:num,a:num,b:num,c:num')
    expect(h.summary).toBe("get_keepa_data (asin='B07XY', domain=1, x=[1], ...): JSON array")
    expect(h.stub).toContain('To read more: recall_tool_result(mem_id="' + h.memId + '", json_path="$[0]")')
  })

  test('an object payload lists its top-level keys with kinds, and its largest collection with its path', () => {
    const h = new Ledger().recordSync({
      toolCallId: 'c',
      toolName: 'catalog',
      content: JSON.stringify({ meta: { count: 7, page: 1 }, rows, name: 'x' }),
    })
    expect(h.summary).toBe('catalog: JSON object')
    expect(h.schema).toBe('object{3} [meta:object{2},rows:array[300],name:str]')
    expect(h.stub).toContain('\ndata: $.rows: array[300] of records, 6 columns: asin:str,price:num,bsr:num,a:num,b:num,c:num\n')
    expect(h.stub).toContain('json_path="$.rows[0]"')
  })

  test('a long provider call id is shortened in the stub but kept in the handle', () => {
    const id = 'toolu_' + 'x'.repeat(1500)
    const h = new Ledger().recordSync({ toolCallId: id, toolName: 't', content: 'body' })
    expect(h.toolCallId).toBe(id)
    const line = h.stub.split('\n')[1]
    expect(Array.from(line.replace('tool=t call_id=', '')).length).toBeLessThanOrEqual(64)
  })

  test('previewChars option and a per-call longer preview', async () => {
    const body = 'word '.repeat(1000)
    const l = new Ledger({ previewChars: 20 })
    const h = l.recordSync({ toolCallId: 'c', toolName: 't', content: body })
    expect(h.preview).toBe(body.slice(0, 20).trim())
    const long = await l.stub(h.memId, { previewChars: 2000 })
    expect(long).toContain(`preview: ${body.slice(0, 2000).trim()}`)
    expect(await l.stub(h.memId, { previewChars: 2000 })).toBe(long)
    expect(new Ledger({ previewChars: 0 }).recordSync({ toolCallId: 'c', toolName: 't', content: body }).preview).toBeNull()
  })
})

describe('fetch', () => {
  const l = new Ledger()
  const digits = rec(l, '0123456789')

  test('summary (and any unknown format) is the stub; full is the payload', async () => {
    expect(await l.fetch(digits.memId)).toBe(digits.stub)
    expect(await l.fetch(digits.memId, { format: 'summary' })).toBe(digits.stub)
    expect(await l.fetch(digits.memId, { format: 'FULL' })).toBe(digits.stub)
    expect(await l.fetch(digits.memId, { format: 'full' })).toBe('0123456789')
  })

  test('offset 5 / max 4 → "5678" and the clamping rules', () => {
    expect(l.fetchSync(digits.memId, { offset: 5, maxChars: 4 })).toBe('5678')
    expect(l.fetchSync(digits.memId, { offset: -3, maxChars: 2 })).toBe('01')
    expect(l.fetchSync(digits.memId, { offset: 10 })).toBe('')
    expect(l.fetchSync(digits.memId, { offset: 99, maxChars: 5 })).toBe('')
    expect(l.fetchSync(digits.memId, { offset: 7, maxChars: 0 })).toBe('789')
    expect(l.fetchSync(digits.memId, { offset: 7, maxChars: -1 })).toBe('789')
    expect(l.fetchSync(digits.memId, { maxChars: 3 })).toBe('012')
  })

  test('offsets count code points and never split a surrogate pair', () => {
    const s = 'a😀b€c👍🏽d'
    const h = rec(l, s, { toolCallId: 'emoji' })
    const cps = Array.from(s)
    expect(h.sizeChars).toBe(cps.length)
    for (let i = 0; i < cps.length; i++) {
      for (let n = 1; n <= cps.length - i; n++) {
        expect(l.fetchSync(h.memId, { offset: i, maxChars: n })).toBe(cps.slice(i, i + n).join(''))
      }
    }
  })

  test('query: the FINDME window with cut marks', () => {
    const body = 'a'.repeat(1000) + 'FINDME' + 'b'.repeat(1000)
    const h = rec(l, body, { toolCallId: 'find' })
    // Each window says where it starts (a code point offset, and its line).
    expect(l.fetchSync(h.memId, { query: 'FINDME' })).toBe('(offset 600, line 1)\n...' + 'a'.repeat(400) + 'FINDME' + 'b'.repeat(400) + '...')
    const short = rec(l, 'xx FINDME yy', { toolCallId: 'find2' })
    expect(l.fetchSync(short.memId, { query: 'FINDME' })).toBe('(offset 0, line 1)\nxx FINDME yy')
  })

  test('query: at most 5 windows, a count line beyond; case-insensitive fallback; no match', () => {
    const body = Array.from({ length: 12 }, (_, i) => `row ${i} SKU-${i}`).join('\n'.repeat(900))
    const h = rec(l, body, { toolCallId: 'many' })
    const out = l.fetchSync(h.memId, { query: 'SKU-' })
    const [first, ...rest] = out.split('\n')
    // Read on from where the fifth window ends (400 after its match): no window repeats text.
    const sixth = body.indexOf('SKU-4') + 'SKU-'.length + 400
    expect(first).toBe(`[recall: 12 matches for query 'SKU-' in ${h.memId}; 1-5 shown; for the rest pass offset=${sixth} with the same query]`)
    expect(rest.join('\n').split('\n---\n')).toHaveLength(5)
    const next = l.fetchSync(h.memId, { query: 'SKU-', offset: sixth })
    expect(next.split('\n')[0]).toMatch(new RegExp(`^\\[recall: 12 matches for query 'SKU-' in ${h.memId}; 5 before offset=${sixth}; 6-10 shown; for the rest pass offset=\\d+ with the same query\\]$`))
    const ci = l.fetchSync(h.memId, { query: 'sku-11' })
    expect(ci.split('\n')[0]).toBe(`[recall: no exact match for query 'sku-11' in ${h.memId}; 1 case-insensitive match]`)
    expect(ci).toContain('SKU-11')
    expect(l.fetchSync(h.memId, { query: 'nowhere' })).toBe(`[recall: no match for query 'nowhere' in ${h.memId}]`)
  })

  test('precedence: jsonPath, then query, then range, then format', () => {
    const h = rec(l, JSON.stringify({ meta: { count: 7 }, note: 'FINDME' }), { toolCallId: 'prec' })
    const all = { format: 'full', offset: 0, maxChars: 3, query: 'FINDME', jsonPath: 'meta.count' }
    expect(l.fetchSync(h.memId, all)).toBe('7')
    expect(l.fetchSync(h.memId, { ...all, jsonPath: undefined })).toContain('"note":"FINDME"')
    expect(l.fetchSync(h.memId, { ...all, jsonPath: undefined, query: undefined })).toBe('{"m')
    expect(l.fetchSync(h.memId, { format: 'full', jsonPath: '', query: '' })).toBe(JSON.stringify({ meta: { count: 7 }, note: 'FINDME' }))
  })

  test('unknown ids and ids from another namespace are not found', async () => {
    const h = rec(l, 'secret', { toolCallId: 'ns', namespace: 'thread-a' })
    expect(l.fetchSync(h.memId, { format: 'full', namespace: 'thread-a' })).toBe('secret')
    expect(l.fetchSync(h.memId, { format: 'full' })).toBe(`[tool_memory not found: ${h.memId} in the default namespace]`)
    expect(l.fetchSync(h.memId, { format: 'full', namespace: 'thread-b' })).toBe(`[tool_memory not found: ${h.memId} in namespace 'thread-b']`)
    expect(l.fetchSync('trm_000000000000')).toBe('[tool_memory not found: trm_000000000000 in the default namespace]')
    expect(await l.handle(h.memId)).toBeNull()
    expect((await l.handle(h.memId, { namespace: 'thread-a' })).namespace).toBe('thread-a')
  })
})

describe('cheap answers on the calling thread, large work on the pool', () => {
  // A 1.3 MB catalog: above the size under which every answer is cheap.
  const rows = Array.from({ length: 15000 }, (_, i) => ({ id: i, title: `widget ${i}`, tags: ['a', 'b'] }))
  const json = JSON.stringify({ meta: { n: rows.length }, rows })
  const cases = [
    ['an indexed path', { jsonPath: 'rows[-1].title' }],
    ['a path miss', { jsonPath: 'rows[3].nope' }],
    ['a range', { offset: 1000, maxChars: 300 }],
    ['the summary', {}],
    ['a wildcard (pool)', { jsonPath: 'rows[*].id' }],
    ['a query (pool)', { query: 'widget 14999' }],
    ['the whole payload (pool)', { format: 'full' }],
  ]
  test.each(cases)('%s: a Promise of the fetchSync answer, counted once', async (_, options) => {
    const l = new Ledger()
    const h = rec(l, json)
    const want = l.fetchSync(h.memId, options)
    const hits = l.stats().hits
    const p = l.fetch(h.memId, options)
    expect(isPromise(p)).toBe(true)
    expect(await p).toBe(want)
    expect(l.stats().hits).toBe(hits + 1)
    const r = recall(l, h.memId, { ...options, maxOutputChars: 500 })
    expect(isPromise(r)).toBe(true)
    expect(Array.from(await r).length).toBeLessThanOrEqual(500)
  })

  test('a miss on a memory-only ledger answers not found and counts one miss', async () => {
    const l = new Ledger()
    const p = l.fetch('trm_000000000000', { jsonPath: 'a' })
    expect(isPromise(p)).toBe(true)
    expect(await p).toBe('[tool_memory not found: trm_000000000000 in the default namespace]')
    expect(l.stats().misses).toBe(1)
  })
})

describe('json paths', () => {
  const l = new Ledger()
  const doc = {
    meta: { count: 7, 'key.with.dots': 'dotted' },
    rows: [
      { id: 10, price: 1.5 },
      { id: 20, price: 2.25 },
      { id: 30, price: 3.0 },
    ],
  }
  const text = JSON.stringify(doc, null, 1)
  const h = rec(l, text, { toolCallId: 'json' })
  const get = (p) => l.fetchSync(h.memId, { jsonPath: p })

  test('the reference cases', () => {
    expect(get('meta.count')).toBe('7')
    const arr = rec(l, JSON.stringify([{ id: 10 }, { id: 20 }]), { toolCallId: 'arr' })
    expect(l.fetchSync(arr.memId, { jsonPath: '1.id' })).toBe('20')
    expect(JSON.parse(get('rows.-1'))).toEqual({ id: 30, price: 3.0 })
  })

  test('brackets, quotes, $ prefixes and the descendant segment', () => {
    expect(get('rows[0].price')).toBe('1.5')
    expect(JSON.parse(get('rows[-1]'))).toEqual(doc.rows[2])
    expect(get('meta["key.with.dots"]')).toBe('"dotted"')
    expect(get("meta['key.with.dots']")).toBe('"dotted"')
    expect(get('$.meta.count')).toBe('7')
    expect(get('$["meta"].count')).toBe('7')
    expect(JSON.parse(get('$'))).toEqual(doc)
    // `..` is RFC 9535's descendant segment: element 1 at any depth, then its id.
    expect(get('rows..1.id')).toBe('[20]')
    expect(get('$..id')).toBe('[10,20,30]')
  })

  test('a node comes back compact (the same value, never re-serialised), or as written with raw', () => {
    // JSON.stringify(_, null, 1) indents; raw keeps the original whitespace, the default drops it.
    const original = text.slice(text.indexOf('{', text.indexOf('"rows"')), text.indexOf('}', text.indexOf('"rows"')) + 1)
    expect(l.fetchSync(h.memId, { jsonPath: 'rows.0', format: 'raw' })).toBe(original)
    expect(get('rows.0')).toBe(original.replace(/\s/g, ''))
    const raw = rec(l, '{"p": 1.50, "s": "caf\\u00e9 \\u0007"}', { toolCallId: 'raw' })
    expect(l.fetchSync(raw.memId, { jsonPath: 'p' })).toBe('1.50')
    expect(l.fetchSync(raw.memId, { jsonPath: 's' })).toBe('"café \\u0007"')
    expect(l.fetchSync(raw.memId, { jsonPath: 's', format: 'raw' })).toBe('"caf\\u00e9 \\u0007"')
  })

  test('wildcards and slices return a JSON array of the selected values', () => {
    expect(JSON.parse(get('rows[*].id'))).toEqual([10, 20, 30])
    expect(JSON.parse(get('rows.*.price'))).toEqual([1.5, 2.25, 3.0])
    expect(JSON.parse(get('rows[0:2].id'))).toEqual([10, 20])
    expect(JSON.parse(get('rows[-2:].id'))).toEqual([20, 30])
  })

  test('not found names the longest prefix that resolved and what is there', () => {
    const miss = get('rows.1.prise')
    expect(miss.startsWith("[recall: json_path 'rows.1.prise' not found")).toBe(true)
    expect(miss).toContain('id')
    expect(miss).toContain('price')
    const far = get('rows.99')
    expect(far.startsWith("[recall: json_path 'rows.99' not found")).toBe(true)
    expect(far).toContain('3')
    expect(get('nope').startsWith("[recall: json_path 'nope' not found")).toBe(true)
  })

  test('a text payload answers the reference message', () => {
    const t = rec(l, 'plain text', { toolCallId: 'txt' })
    expect(l.fetchSync(t.memId, { jsonPath: 'a.b' })).toBe("[recall: payload is not JSON; json_path 'a.b' not applicable]")
  })
})

describe('recall', () => {
  const l = new Ledger()
  const big = 'x'.repeat(5_000_000)
  const hb = rec(l, big, { toolCallId: 'big' })
  const hd = rec(l, '0123456789', { toolCallId: 'digits' })

  test('mem_id must be a non-empty string', async () => {
    for (const bad of [undefined, null, '', '   ', 5, {}, [], true, Symbol('x'), () => 1]) {
      await expect(recall(l, bad)).resolves.toBe('[tool_memory error: mem_id must be a non-empty string]')
    }
  })

  test('unknown format → summary; a keyed option forces full-fetch semantics', async () => {
    expect(await recall(l, hd.memId, { format: 'everything' })).toBe(
      `[recall: format "everything" is not a format: 'summary' (the stub), 'full' (the whole result), 'count' (with pattern, query or json_path: how many match), 'paths' (with json_path: where each node is), 'raw' (JSON and lines as written); for part of a JSON result pass json_path, for some lines pattern or lines]`,
    )
    expect(await recall(l, hd.memId)).toBe(hd.stub)
    expect(await recall(l, hd.memId, { format: 'summary', offset: 5, maxChars: 4 })).toBe('5678')
    expect(await recall(l, hd.memId, { format: 'summary', maxChars: 2 })).toBe('01')
  })

  test('an unknown option or options that are not an object reject with a TypeError naming the fix', async () => {
    await expect(recall(l, hd.memId, { jsonpath: 'a' })).rejects.toThrow(
      new TypeError('recall(ledger, memId, options): unknown option "jsonpath"; did you mean "jsonPath"? (known: format, query, offset, maxChars, jsonPath, pattern, ignoreCase, context, lines, namespace, maxOutputChars, blocks)'),
    )
    await expect(recall(l, hd.memId, { max_chars: 2 })).rejects.toThrow(/did you mean "maxChars"\?/)
    await expect(recall(l, hd.memId, { ignore_case: true })).rejects.toThrow(/did you mean "ignoreCase"\?/)
    await expect(recall(l, hd.memId, 'full')).rejects.toThrow(new TypeError('recall(ledger, memId, options): options must be an object (got the string "full")'))
  })

  test('a 5,000,000-character full recall is capped at 50,000 with the marker and where to continue', async () => {
    const out = await recall(l, hb.memId, { format: 'full' })
    expect(Array.from(out).length).toBeLessThanOrEqual(MAX_OUTPUT_CHARS)
    const cut = out.indexOf('\n...[')
    expect(out.slice(0, cut)).toBe('x'.repeat(cut))
    expect(out.slice(cut)).toBe(
      `\n...[recall_tool_result output truncated at 50000 chars; mem_id=${hb.memId} retains full data in the ledger; continue with offset=${cut} (page 1 of about ${Math.ceil(5_000_000 / (50_000 - 200))} at this size; to read a part, pass pattern or query)]`,
    )
    const next = await recall(l, hb.memId, { offset: cut, maxChars: 10 })
    expect(next).toBe('x'.repeat(10))
    const ranged = await recall(l, hb.memId, { offset: 1000, maxOutputChars: 500 })
    expect(ranged).toMatch(/continue with offset=(\d+)\]$/)
    expect(Number(ranged.match(/offset=(\d+)\]$/)[1])).toBe(1000 + ranged.indexOf('\n...['))
  })

  test('not found answers, never throws', async () => {
    await expect(recall(l, 'trm_ffffffffffff')).resolves.toBe('[tool_memory not found: trm_ffffffffffff in the default namespace]')
  })

  test('a ledger written in JS: sync, async, keyed options passed through, errors contained', async () => {
    const calls = []
    const jsLedger = {
      fetch(memId, options) {
        calls.push(options)
        return memId === 'trm_js' ? (options.format === 'full' ? 'FULL BODY' : 'stub text') : `[tool_memory not found: ${memId}]`
      },
    }
    expect(await recall(jsLedger, 'trm_js')).toBe('stub text')
    expect(await recall(jsLedger, 'trm_js', { query: 'x', format: 'summary' })).toBe('FULL BODY')
    expect(calls[1]).toMatchObject({ format: 'full', query: 'x' })
    const asyncLedger = { fetch: async () => 'async body' }
    expect(await recall(asyncLedger, 'trm_a', { format: 'full' })).toBe('async body')
    const throwing = {
      fetch() {
        throw new Error('boom')
      },
    }
    expect(await recall(throwing, 'trm_t')).toBe('[tool_memory error: ledger fetch failed for trm_t]')
    const rejecting = { fetch: () => Promise.reject(new Error('boom')) }
    expect(await recall(rejecting, 'trm_r')).toBe('[tool_memory error: ledger fetch failed for trm_r]')
    // Not a ledger at all is the caller's mistake, not the model's.
    for (const notALedger of [null, undefined, 5, {}, { fetch: 'no' }]) {
      await expect(recall(notALedger, 'trm_x')).rejects.toThrow(/^recall\(ledger, memId, options\): ledger must be a Ledger or an object with fetch\(\)/)
    }
  })

  test('a legacy-style JS ledger that only knows format degrades to the capped full body', async () => {
    const seen = []
    const legacy = {
      fetch(memId, options) {
        seen.push(options)
        if (Object.keys(options).some((k) => k !== 'format' && options[k] !== undefined)) {
          throw new TypeError('fetch() got an unexpected keyword argument')
        }
        return options.format === 'full' ? 'y'.repeat(120_000) : 'legacy stub'
      },
    }
    const out = await recall(legacy, 'trm_legacy', { query: 'y' })
    expect(seen).toHaveLength(2)
    expect(seen[1]).toEqual({ format: 'full' })
    expect(Array.from(out).length).toBeLessThanOrEqual(MAX_OUTPUT_CHARS)
    expect(out).toContain('mem_id=trm_legacy retains full data in the ledger; continue with offset=')
  })

  test('a JS ledger answer is capped too, counting code points', async () => {
    const emoji = { fetch: () => '😀'.repeat(60_000) }
    const out = await recall(emoji, 'trm_e', { format: 'full' })
    const cps = Array.from(out)
    expect(cps.length).toBeLessThanOrEqual(MAX_OUTPUT_CHARS)
    expect(out.startsWith('😀'.repeat(1000))).toBe(true)
    expect(out).toMatch(/truncated at 50000 chars; mem_id=trm_e retains full data in the ledger; continue with offset=\d+\]$/)
    // No lone surrogate anywhere.
    expect(out).toBe(Buffer.from(out, 'utf8').toString('utf8'))
  })

  test('wrong types, NaN, huge numbers and megabyte queries are answered, not thrown', async () => {
    const weird = [
      { offset: NaN, maxChars: Infinity },
      { offset: -1e308, maxChars: 1e308 },
      { offset: '3', maxChars: '2' },
      { offset: {}, maxChars: [] },
      { query: 'q'.repeat(2_000_000) },
      { jsonPath: '['.repeat(100_000) },
      { pattern: '('.repeat(100_000), context: 1e9, lines: '-'.repeat(100_000), ignoreCase: 'yes' },
      { pattern: [], context: NaN, lines: {}, ignoreCase: null },
      { format: 42, namespace: 7, maxOutputChars: -5 },
      null,
    ]
    for (const o of weird) {
      const out = await recall(l, hd.memId, o)
      expect(typeof out).toBe('string')
      expect(Array.from(out).length).toBeLessThanOrEqual(MAX_OUTPUT_CHARS)
    }
    expect(await recall(l, hd.memId, { offset: '3', maxChars: '2' })).toBe('34')
    const longQuery = await recall(l, hd.memId, { query: 'q'.repeat(2_000_000) })
    expect(longQuery.startsWith("[recall: no match for query 'qqq")).toBe(true)
    expect(longQuery.length).toBeLessThan(400)
  })
})

describe('storage', () => {
  test('maxBytes evicts least-recently-used entries and counts it', async () => {
    const l = new Ledger({ maxBytes: 250_000 })
    const a = rec(l, 'a'.repeat(100_000), { toolCallId: 'a' })
    const b = rec(l, 'b'.repeat(100_000), { toolCallId: 'b' })
    expect(l.fetchSync(a.memId, { maxChars: 1 })).toBe('a') // a is now the most recent
    rec(l, 'c'.repeat(100_000), { toolCallId: 'c' })
    expect(await l.handle(b.memId)).toBeNull()
    expect(await l.handle(a.memId)).not.toBeNull()
    const s = l.stats()
    expect(s.entries).toBe(2)
    expect(s.evictions).toBe(1)
    expect(s.bytes).toBeLessThanOrEqual(250_000)
    expect(s.bytes).toBeGreaterThanOrEqual(200_000)
  })

  test('hits, misses, delete and clear by namespace', async () => {
    const l = new Ledger()
    const a = rec(l, 'one', { namespace: 'x' })
    rec(l, 'two', { namespace: 'x' })
    rec(l, 'three', { namespace: 'y' })
    l.fetchSync(a.memId, { namespace: 'x' })
    l.fetchSync(a.memId)
    expect(l.stats()).toMatchObject({ entries: 3, hits: 1, misses: 1, evictions: 0 })
    expect(await l.delete(a.memId, { namespace: 'x' })).toBe(true)
    expect(await l.delete(a.memId, { namespace: 'x' })).toBe(false)
    expect(await l.clear({ namespace: 'x' })).toBe(1)
    expect(l.stats().entries).toBe(1)
    expect(await l.clear()).toBe(1)
    expect(l.stats()).toMatchObject({ entries: 0, bytes: 0 })
  })

  test('every method takes the namespace the same way: an options object; a string there is a TypeError naming the new form', async () => {
    const l = new Ledger()
    const a = rec(l, 'one', { namespace: 'x' })
    expect((await l.handle(a.memId, { namespace: 'x' })).namespace).toBe('x')
    expect(await l.stub(a.memId, { namespace: 'x' })).toBe(a.stub)
    expect(l.fetchSync(a.memId, { namespace: 'x' })).toBe(a.stub)
    const cases = [
      [() => l.handle(a.memId, 'x'), 'Ledger.handle(memId, options): the namespace goes in the options object: handle(memId, { namespace: "x" }) (got the string "x")'],
      [() => l.stub(a.memId, 'x'), 'Ledger.stub(memId, options): the namespace goes in the options object: stub(memId, { namespace: "x" }) (got the string "x")'],
      [() => l.stub(a.memId, 'x', { previewChars: 10 }), 'Ledger.stub(memId, options): the namespace and the preview length go in one options object: stub(memId, { namespace, previewChars }) (got object)'],
      [() => l.delete(a.memId, 'x'), 'Ledger.delete(memId, options): the namespace goes in the options object: delete(memId, { namespace: "x" }) (got the string "x")'],
      [() => l.clear('x'), 'Ledger.clear(options): the namespace goes in the options object: clear({ namespace: "x" }) (got the string "x")'],
      [() => l.fetchSync(a.memId, 'x'), 'Ledger.fetchSync(memId, options): the namespace goes in the options object: fetchSync(memId, { namespace: "x" }) (got the string "x")'],
      [() => l.handle(a.memId, { namespce: 'x' }), /^Ledger.handle\(memId, options\): unknown option "namespce"; did you mean "namespace"\?/],
      [() => l.clear({ namespace: 5 }), /^Ledger.clear\(options\): namespace must be well-formed text/],
    ]
    // Sync methods throw, async ones reject: either way a TypeError.
    for (const [call, message] of cases) {
      await expect(Promise.resolve().then(call)).rejects.toThrow(TypeError)
      await expect(Promise.resolve().then(call)).rejects.toThrow(message)
    }
    // nothing was removed by the refused calls
    expect(await l.handle(a.memId, { namespace: 'x' })).not.toBeNull()
    expect(await l.delete(a.memId, { namespace: 'x' })).toBe(true)
  })

  test('error messages start with the call: new Ledger(options), Ledger.method(arguments)', async () => {
    expect(() => new Ledger({ store: 'mysql://db' })).toThrow(/^new Ledger\(options\): /)
    expect(() => new Ledger({ ttlSeconds: -1 })).toThrow(/^new Ledger\(options\): ttlSeconds/)
    expect(() => new Ledger({ maxBytes: 'big' })).toThrow(/^new Ledger\(options\): maxBytes/)
    await expect(new Ledger().fetch('', {})).rejects.toThrow(/^Ledger.fetch\(memId, options\): memId must be a non-empty string/)
    await expect(new Ledger().handle(7)).rejects.toThrow(/^Ledger.handle\(memId, options\): memId/)
  })

  test('Buffer content is recorded as its UTF-8 text', async () => {
    const l = new Ledger()
    const h = await l.record({ toolCallId: 'buf', toolName: 't', content: Buffer.from('día 😀') })
    expect(h.sizeChars).toBe(5)
    expect(h.memId).toBe(memIdFor('buf', 'día 😀'))
    expect(await l.fetch(h.memId, { format: 'full' })).toBe('día 😀')
  })

  test('async records run concurrently and agree with sync ones', async () => {
    const l = new Ledger()
    const inputs = Array.from({ length: 20 }, (_, i) => ({ toolCallId: `c${i}`, toolName: 't', content: `payload ${i} `.repeat(5000) }))
    const handles = await Promise.all(inputs.map((i) => l.record(i)))
    const sync = new Ledger()
    expect(handles).toEqual(inputs.map((i) => sync.recordSync(i)))
    expect(l.stats().entries).toBe(20)
  })
})

describe('programmer errors are TypeErrors that say what was wrong', () => {
  test.each([
    [() => new Ledger({ maxBytes: -1 }), /maxBytes must be a non-negative finite number \(got number -1\)/],
    [() => new Ledger({ previewChars: 'long' }), /previewChars must be a non-negative integer/],
    [() => new Ledger('big'), /options must be an object/],
    [() => new Ledger().recordSync({ toolName: 't', content: 'x' }), /toolCallId must be a non-empty string \(got undefined\)/],
    [() => new Ledger().recordSync({ toolCallId: 'c', toolName: 't', content: 42 }), /content must be a string or a Buffer \(got number 42\)/],
    [() => new Ledger().recordSync({ toolCallId: 'c', toolName: 't', content: 'x', toolArgs: [1] }), /toolArgs must be a plain object/],
    [() => new Ledger().fetchSync(5), /memId must be a non-empty string/],
    [() => memIdFor('', 'x'), /toolCallId must be a non-empty string/],
  ])('%#', (fn, message) => {
    expect(fn).toThrow(TypeError)
    expect(fn).toThrow(message)
  })

  test('async record rejects with the TypeError', async () => {
    await expect(new Ledger().record({ toolCallId: 'c' })).rejects.toThrow(new TypeError('Ledger.record(input): toolName must be a non-empty string (got undefined)'))
  })
})
