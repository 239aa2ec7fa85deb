'use strict'
// The compaction policy on hand-built histories: eligibility once the model
// has answered (single and parallel calls), the rewrite rule, cache marks,
// recall notes with their loop guard, per-tool overrides, option checks.

const { Ledger } = require('..')
const { compactToolMessages, toolMemoryMiddleware, toolMemoryPreModelHook } = require('../langchain')
const { AIMessage, HumanMessage, ToolMessage, SystemMessage } = require('@langchain/core/messages')
const { textOf, marksIn } = require('./support/scripted-model.js')

const HEADER = '[symfonic.tool_memory v2]'
// Compaction's own notes (recall answers already read) keep the v1 header.
const NOTE_HEADER = '[symfonic.tool_memory v1]'
// Fixed options, so these tests do not move when the benchmark retunes DEFAULTS.
// windowCalls Infinity: results up to sizeChars are never compacted (masking has its own tests).
const SEEN = { compactAfter: 'seen', keepLastN: 0, sizeChars: 8000, evictChars: 80000, horizonCalls: 4, recallAnswers: 'note', windowCalls: Infinity, quotedCalls: 0, maxExtraCost: Infinity }

function text(tag, chars) {
  const line = `${tag}: lorem ipsum dolor sit amet ${'x'.repeat(40)}\n`
  return line.repeat(Math.ceil(chars / line.length)).slice(0, chars)
}
const calling = (...calls) =>
  new AIMessage({ content: '', tool_calls: calls.map(([id, name, args]) => ({ id, name, args: args || {}, type: 'tool_call' })) })
const result = (id, name, content) => new ToolMessage({ content, tool_call_id: id, name })
const exchange = (id, name, content, args) => [calling([id, name, args]), result(id, name, content)]

const byCallId = (list, id) => list.find((m) => m.tool_call_id === id)
const isStub = (m) => textOf(m.content).startsWith(HEADER)
const stubbed = (list, ids) => ids.map((id) => isStub(byCallId(list, id)))
const texts = (list) => list.map((m) => textOf(m.content))
const markedAt = (list) => list.flatMap((m, i) => (marksIn(m.content) > 0 ? [i] : []))

describe('eligibility: a result is compacted once the model has answered after it', () => {
  const P = (id) => text(id, 20000)

  test('the freshest result stays in full; it becomes a stub once an AIMessage follows it', async () => {
    const ledger = new Ledger()
    const one = [new HumanMessage('go'), ...exchange('a', 'read', P('a'))]
    expect(stubbed(await compactToolMessages(one, ledger, SEEN), ['a'])).toEqual([false])
    const two = [...one, ...exchange('b', 'read', P('b'))]
    expect(stubbed(await compactToolMessages(two, ledger, SEEN), ['a', 'b'])).toEqual([true, false])
    // A final answer is an AIMessage too: the result it answered from is seen.
    const answered = [...two, new AIMessage('here is what I found')]
    expect(stubbed(await compactToolMessages(answered, ledger, SEEN), ['a', 'b'])).toEqual([true, true])
  })

  test('parallel calls: the results of one AIMessage are fresh together and compacted together', async () => {
    const ledger = new Ledger()
    const batch = [new HumanMessage('go'), calling(['a', 'read'], ['b', 'read'], ['c', 'search']), result('a', 'read', P('a')), result('b', 'read', P('b')), result('c', 'search', P('c'))]
    const fresh = await compactToolMessages(batch, ledger, SEEN)
    expect(stubbed(fresh, ['a', 'b', 'c'])).toEqual([false, false, false])
    for (const id of ['a', 'b', 'c']) expect(byCallId(fresh, id)).toBe(byCallId(batch, id))
    const next = [...batch, ...exchange('d', 'read', P('d'))]
    expect(stubbed(await compactToolMessages(next, ledger, SEEN), ['a', 'b', 'c', 'd'])).toEqual([true, true, true, false])
  })

  test("compactAfter 'turn' waits for a HumanMessage, 'arrival' does not wait", async () => {
    const ledger = new Ledger()
    const loop = [new HumanMessage('go'), ...exchange('a', 'read', P('a')), ...exchange('b', 'read', P('b')), ...exchange('c', 'read', P('c'))]
    const opts = { ...SEEN, horizonCalls: Infinity }
    expect(stubbed(await compactToolMessages(loop, ledger, { ...opts, compactAfter: 'turn' }), ['a', 'b', 'c'])).toEqual([false, false, false])
    expect(stubbed(await compactToolMessages(loop, ledger, { ...opts, compactAfter: 'seen' }), ['a', 'b', 'c'])).toEqual([true, true, false])
    expect(stubbed(await compactToolMessages(loop, ledger, { ...opts, compactAfter: 'arrival', keepLastN: 0 }), ['a', 'b', 'c'])).toEqual([true, true, true])
  })

  test('keepLastN keeps the most recent seen results in full', async () => {
    const ledger = new Ledger()
    const loop = [new HumanMessage('go'), ...['a', 'b', 'c', 'd'].flatMap((id) => exchange(id, 'read', P(id)))]
    const out = await compactToolMessages(loop, ledger, { ...SEEN, keepLastN: 1, horizonCalls: Infinity })
    // d is fresh, c is the one seen result kept.
    expect(stubbed(out, ['a', 'b', 'c', 'd'])).toEqual([true, true, false, false])
  })

  test('results over evictChars are stubs from first sight, fresh or not', async () => {
    const ledger = new Ledger()
    const out = await compactToolMessages([new HumanMessage('go'), ...exchange('g', 'export', text('g', 90000))], ledger, SEEN)
    expect(isStub(byCallId(out, 'g'))).toBe(true)
    expect(textOf(byCallId(out, 'g').content)).toContain(' size=90000 chars\n')
  })
})

describe('the rewrite rule: a deep rewrite waits until it pays', () => {
  // Turn mode with keepLastN 1: at the turn boundary the kept result b sits
  // after a, so compacting a alone would rewrite b's 20,000 cached chars.
  const turnList = (extra = []) => [
    new HumanMessage('one'),
    ...exchange('a', 'read', text('a', 20000)),
    ...exchange('b', 'read', text('b', 20000)),
    new AIMessage('answer'),
    new HumanMessage('two'),
    ...extra,
  ]
  const TURN1 = { ...SEEN, compactAfter: 'turn', keepLastN: 1 }

  test('compacting a result with a large kept result after it is deferred, then batched', async () => {
    const ledger = new Ledger()
    const deferred = await compactToolMessages(turnList(), ledger, TURN1)
    expect(stubbed(deferred, ['a', 'b'])).toEqual([false, false])
    // Always rewriting (the first release's rule) compacts a at once.
    expect(stubbed(await compactToolMessages(turnList(), ledger, { ...TURN1, horizonCalls: Infinity }), ['a', 'b'])).toEqual([true, false])
    // Once b leaves the keepLastN window too (a small result c is the one kept now),
    // one rewrite from a clears both.
    const later = turnList([...exchange('c', 'read', text('c', 500)), new AIMessage('answer 2'), new HumanMessage('three'), calling(['z', 'noop'])])
    expect(stubbed(await compactToolMessages(later, ledger, TURN1), ['a', 'b', 'c'])).toEqual([true, true, false])
  })

  test('the prices decide: without a cache discount a deep rewrite pays at once', async () => {
    const ledger = new Ledger()
    // A cached token costs what a written one does: rewriting b costs nothing extra,
    // and dropping a's 19,300 chars pays on the call itself, even with horizonCalls 0.
    for (const horizonCalls of [4, 0]) {
      const flat = await compactToolMessages(turnList(), ledger, { ...TURN1, pricing: { cacheWrite: 1, cacheRead: 1 }, horizonCalls })
      expect(stubbed(flat, ['a', 'b'])).toEqual([true, false])
    }
    // A long horizon repays the miss with the default prices too.
    expect(stubbed(await compactToolMessages(turnList(), ledger, { ...TURN1, horizonCalls: 50 }), ['a', 'b'])).toEqual([true, false])
  })

  test('decisions replay the earlier calls: every prefix of a growing loop keeps its stubs, byte for byte', async () => {
    const ledger = new Ledger()
    const full = [new HumanMessage('go')]
    for (let i = 0; i < 14; i++) {
      const width = 1 + (i % 3)
      const ids = Array.from({ length: width }, (_, k) => `r${i}_${k}`)
      full.push(calling(...ids.map((id) => [id, i % 2 ? 'read' : 'search'])))
      for (const [k, id] of ids.entries()) full.push(result(id, i % 2 ? 'read' : 'search', text(id, 5000 + ((i * 4001 + k * 977) % 30000))))
      if (i % 5 === 4) full.push(new AIMessage(`summary ${i}`), new HumanMessage(`next ${i}`))
    }
    for (const cacheModel of ['prefix', 'breakpoint']) {
      const seen = new Map()
      let compacted = 0
      for (let end = 2; end <= full.length; end++) {
        const out = await compactToolMessages(full.slice(0, end), ledger, { ...SEEN, cacheModel })
        for (const m of out) {
          if (m.type !== 'tool') continue
          const t = textOf(m.content)
          if (seen.has(m.tool_call_id)) expect(t).toBe(seen.get(m.tool_call_id))
          else if (isStub(m)) seen.set(m.tool_call_id, t)
        }
        compacted = seen.size
      }
      expect(compacted).toBeGreaterThan(15)
    }
  })
})

describe('cache marks (breakpoint)', () => {
  const BP = { ...SEEN, cacheModel: 'breakpoint' }
  const loop = () => [
    new SystemMessage('sys'),
    new HumanMessage('go'),
    new AIMessage({ content: 'Reading a.', tool_calls: [{ id: 'a', name: 'read', args: {}, type: 'tool_call' }] }),
    result('a', 'read', text('a', 20000)),
    calling(['b', 'read']),
    result('b', 'read', text('b', 20000)),
  ]

  test("one mark, on the last message before what the next call rewrites, in Anthropic's shape, text unchanged", async () => {
    const ledger = new Ledger()
    const input = loop()
    const before = input.map((m) => JSON.stringify(m.content))
    const out = await compactToolMessages(input, ledger, BP)
    // b is fresh and will be compacted next call; the AIMessage that called it has no text,
    // so the mark goes on a's stub, which no later call changes.
    expect(markedAt(out)).toEqual([3])
    expect(isStub(out[3])).toBe(true)
    const blocks = out[3].content
    expect(Array.isArray(blocks)).toBe(true)
    expect(blocks[blocks.length - 1].cache_control).toEqual({ type: 'ephemeral' })
    expect(texts(out)).toEqual(texts(await compactToolMessages(input, ledger, SEEN)))
    expect(input.map((m) => JSON.stringify(m.content))).toEqual(before)
    // The next call: everything up to the mark is byte-identical, so the mark is a cache hit.
    const next = await compactToolMessages([...input, ...exchange('c', 'read', text('c', 20000))], ledger, BP)
    expect(texts(next).slice(0, 4)).toEqual(texts(out).slice(0, 4))
    expect(isStub(byCallId(next, 'b'))).toBe(true)
  })

  test('an AIMessage with text carries the mark itself; with nothing to compact the last message is marked', async () => {
    const ledger = new Ledger()
    const list = [new HumanMessage('go'), new AIMessage({ content: 'Reading a.', tool_calls: [{ id: 'a', name: 'read', args: {}, type: 'tool_call' }] }), result('a', 'read', text('a', 20000))]
    expect(markedAt(await compactToolMessages(list, ledger, BP))).toEqual([1])
    const small = [new HumanMessage('go'), ...exchange('s', 'read', 'tiny'), new AIMessage('done')]
    expect(markedAt(await compactToolMessages(small, ledger, BP))).toEqual([3])
  })

  test('at most two marks on any prefix of a long session; none under prefix or with cacheMarks false', async () => {
    const ledger = new Ledger()
    const full = [new SystemMessage('sys'), new HumanMessage('go')]
    for (let i = 0; i < 20; i++) {
      full.push(new AIMessage({ content: i % 3 ? '' : `step ${i}`, tool_calls: [{ id: `c${i}`, name: 'read', args: { i }, type: 'tool_call' }] }))
      full.push(result(`c${i}`, 'read', text(`c${i}`, i % 4 === 0 ? 2000 : 12000)))
      if (i % 6 === 5) full.push(new AIMessage('ok'), new HumanMessage(`more ${i}`))
    }
    for (const opts of [BP, { ...BP, compactAfter: 'turn' }, { ...BP, keepLastN: 2 }]) {
      for (let end = 3; end <= full.length; end++) {
        const out = await compactToolMessages(full.slice(0, end), ledger, opts)
        const marks = out.reduce((a, m) => a + marksIn(m.content), 0)
        expect(marks).toBeGreaterThanOrEqual(1)
        expect(marks).toBeLessThanOrEqual(2)
      }
    }
    expect(markedAt(await compactToolMessages(full, ledger, SEEN))).toEqual([])
    expect(markedAt(await compactToolMessages(full, ledger, { ...BP, cacheMarks: false }))).toEqual([])
  })
})

describe('recall answers: a note once read, and the loop guard', () => {
  const page = text('page', 20000)
  const recallOf = (id, args) => [calling([id, 'recall_tool_result', args]), result(id, 'recall_tool_result', page)]

  test('a seen recall answer over sizeChars becomes a note naming mem_id and arguments; a small one stays', async () => {
    const ledger = new Ledger()
    const records = []
    const record = ledger.record.bind(ledger)
    ledger.record = (input) => {
      records.push(input.toolCallId)
      return record(input)
    }
    const list = [new HumanMessage('go'), ...recallOf('r1', { mem_id: 'trm_0123456789ab', query: 'lorem' }), ...exchange('x', 'read', 'small'), new AIMessage('done')]
    const out = await compactToolMessages(list, ledger, SEEN)
    const note = textOf(byCallId(out, 'r1').content)
    expect(note.startsWith(NOTE_HEADER)).toBe(true)
    expect(note).toContain('mem_id="trm_0123456789ab"')
    expect(note).toContain('query="lorem"')
    expect(note).toContain('20000 chars')
    expect(byCallId(out, 'r1').response_metadata.tool_memory).toEqual({ memId: 'trm_0123456789ab', compacted: true, note: true })
    expect(note.length).toBeLessThan(500)
    // Not recorded in the ledger: a note is rebuilt from the call's arguments.
    expect(records).toEqual([])
    // Fresh recall answers are read in full.
    const fresh = await compactToolMessages(list.slice(0, 3), ledger, SEEN)
    expect(textOf(byCallId(fresh, 'r1').content)).toBe(page)
    // 'keep' keeps them; 'stub' records them like any result.
    expect(textOf(byCallId(await compactToolMessages(list, ledger, { ...SEEN, recallAnswers: 'keep' }), 'r1').content)).toBe(page)
    const stub = textOf(byCallId(await compactToolMessages(list, ledger, { ...SEEN, recallAnswers: 'stub' }), 'r1').content)
    expect(stub).toMatch(/\nmem=trm_[0-9a-f]{12} size=/)
    expect(records).toEqual(['r1'])
  })

  test('a recall that repeats an earlier one is kept in full, so the model cannot loop on it', async () => {
    const ledger = new Ledger()
    const args = { mem_id: 'trm_0123456789ab', format: 'full' }
    const list = [new HumanMessage('go'), ...recallOf('r1', args), calling(['n1', 'noop']), result('n1', 'noop', 'ok'), ...recallOf('r2', { format: 'full', mem_id: 'trm_0123456789ab' }), ...exchange('n2', 'noop', 'ok'), new AIMessage('done')]
    const out = await compactToolMessages(list, ledger, SEEN)
    expect(textOf(byCallId(out, 'r1').content)).toContain('recall answer already read')
    expect(textOf(byCallId(out, 'r2').content)).toBe(page)
    // Other arguments are another slice: no pin.
    const other = [...list.slice(0, -1), ...recallOf('r3', { mem_id: 'trm_0123456789ab', query: 'x' }), new AIMessage('done')]
    expect(textOf(byCallId(await compactToolMessages(other, ledger, SEEN), 'r3').content)).toContain('recall answer already read')
  })
})

describe('perTool', () => {
  test('per-tool sizeChars, evictChars and exempt override the global thresholds', async () => {
    const ledger = new Ledger()
    const list = [
      new HumanMessage('go'),
      ...exchange('f', 'read_file', text('f', 30000)),
      ...exchange('l', 'logs', text('l', 6000)),
      ...exchange('s', 'search', text('s', 30000)),
      ...exchange('e', 'export', text('e', 50000)),
      new AIMessage('done'),
    ]
    const out = await compactToolMessages(list, ledger, {
      ...SEEN,
      perTool: { read_file: { sizeChars: 40000 }, logs: { sizeChars: 1000 }, search: { exempt: true }, export: { evictChars: 40000 } },
    })
    expect(stubbed(out, ['f', 'l', 's', 'e'])).toEqual([false, true, false, true])
    expect(byCallId(out, 'f')).toBe(byCallId(list, 'f'))
    // The export is evicted (over its own evictChars), with the long preview of an evicted stub.
    expect(textOf(byCallId(out, 'e').content).length).toBeGreaterThan(2000)
    // Without the overrides: f and s are stubs, l is small, e is a plain stub.
    expect(stubbed(await compactToolMessages(list, ledger, SEEN), ['f', 'l', 's', 'e'])).toEqual([true, false, true, true])
  })
})

describe('options fail closed', () => {
  const list = () => [new HumanMessage('q'), ...exchange('a', 't', text('a', 30000))]
  const ledger = new Ledger()
  const bad = [
    [{ keepLastn: 1 }, /^compactToolMessages\(messages, ledger, options\): unknown option "keepLastn"; did you mean "keepLastN"\?/],
    [{ compactAfter: 'later' }, /compactAfter must be one of 'seen', 'turn', 'arrival'/],
    // removed before any release: an unknown option like any other
    [{ settledOnly: true }, /^compactToolMessages\(messages, ledger, options\): unknown option "settledOnly"/],
    [{ recallAnswers: 'drop' }, /recallAnswers must be one of/],
    [{ horizonCalls: -1 }, /horizonCalls must be a non-negative number/],
    [{ pricing: { cacheWrite: 1.25, cacheread: 0.1 } }, /unknown option "pricing.cacheread"; did you mean "pricing.cacheRead"\?/],
    [{ pricing: { cacheWrite: 'high' } }, /pricing.cacheWrite/],
    [{ perTool: { read: { sizechars: 10 } } }, /unknown option "perTool.read.sizechars"; did you mean "perTool.read.sizeChars"\?/],
    [{ sizeChars: 90000, evictChars: 80000 }, /sizeChars \(90000\) must not exceed evictChars \(80000\)/],
    [{ perTool: { read: { sizeChars: Infinity } } }, /perTool.read.sizeChars \(Infinity\) must not exceed perTool.read.evictChars/],
    [{ namespace: 7 }, /compactToolMessages\(messages, ledger, options\): namespace must be well-formed text \(a string without lone surrogates\) \(got number 7\)/],
    [{ logger: {} }, /logger must be an object with a warn\(message\) method/],
    [{ onEvent: 'metrics' }, /onEvent must be a function/],
    [{ perTool: { read: { exempt: 'yes' } } }, /perTool.read.exempt must be a boolean/],
    [{ perTool: ['read'] }, /perTool must be an object/],
    [{ perTool: { read: 5 } }, /perTool.read must be an object/],
    [{ cacheMarks: 1 }, /cacheMarks must be a boolean/],
    [{ gate: { inputPricePerMTok: 3 } }, /unknown option "gate"/],
    [{ windowCalls: -1 }, /windowCalls must be a non-negative number/],
    [{ quotedCalls: 'often' }, /quotedCalls must be a non-negative number/],
    [{ horizonCalls: 'later' }, /horizonCalls must be a non-negative number, Infinity or 'auto'/],
    [{ Foo: 1 }, /unknown option "Foo" \(known: /],
    [{ exemptTools: [1] }, /exemptTools must be an array of tool names/],
  ]
  test.each(bad)('compactToolMessages(%j) is a TypeError', async (opts, msg) => {
    const p = compactToolMessages(list(), ledger, opts)
    await expect(p).rejects.toThrow(TypeError)
    await expect(compactToolMessages(list(), ledger, opts)).rejects.toThrow(msg)
  })

  test('the middleware and the hook name themselves, and check their own options', () => {
    expect(() => toolMemoryMiddleware({ keepLastn: 1 })).toThrow(/^toolMemoryMiddleware\(options\): unknown option "keepLastn"; did you mean "keepLastN"\?/)
    expect(() => toolMemoryMiddleware({ ledgr: new Ledger() })).toThrow(/^toolMemoryMiddleware\(options\): unknown option "ledgr"; did you mean "ledger"\?/)
    expect(() => toolMemoryPreModelHook({ perTool: { x: { size: 1 } } })).toThrow(/^toolMemoryPreModelHook\(options\): unknown option "perTool.x.size"/)
    expect(() => toolMemoryMiddleware({ cacheModel: 'lru' })).toThrow(/toolMemoryMiddleware\(options\): cacheModel/)
    expect(() => toolMemoryMiddleware({ ledger: {} })).toThrow(/toolMemoryMiddleware\(options\): ledger must be a Ledger/)
    expect(() => toolMemoryPreModelHook({ namespace: 5 })).toThrow(/toolMemoryPreModelHook\(options\): namespace/)
    expect(() => toolMemoryMiddleware([])).toThrow(TypeError)
    // Valid options pass.
    expect(typeof toolMemoryPreModelHook({ compactAfter: 'turn', perTool: { x: { exempt: true } }, pricing: { cacheWrite: 2 } })).toBe('function')
  })
})
