'use strict'
// compactToolMessages on hand-built histories: what is compacted, what is
// kept, what the stub message looks like, and what it costs per call.

const { Ledger, memIdFor } = require('..')
const { compactToolMessages } = require('../langchain')
const { DEFAULTS, cacheModelFor } = require('../langchain/memory.js')
const { AIMessage, HumanMessage, ToolMessage, SystemMessage } = require('@langchain/core/messages')

const HEADER = '[symfonic.tool_memory v2]'
// Fixed options, so these tests do not move when the benchmark retunes DEFAULTS; the
// budget (maxExtraCost) has its own tests (langchain-budget.test.js).
// windowCalls Infinity: results up to sizeChars are never compacted (these tests are about the rest).
const OPTS = { keepLastN: 1, sizeChars: 8000, evictChars: 80000, compactAfter: 'turn', horizonCalls: Infinity, windowCalls: Infinity, maxExtraCost: Infinity }

function text(tag, chars) {
  const line = `${tag}: lorem ipsum dolor sit amet ${'x'.repeat(40)}\n`
  return line.repeat(Math.ceil(chars / line.length)).slice(0, chars)
}

// One tool call and its result, as an AIMessage/ToolMessage pair.
function exchange(id, name, args, content, extra = {}) {
  return [
    new AIMessage({ content: '', tool_calls: [{ id, name, args, type: 'tool_call' }] }),
    new ToolMessage({ content, tool_call_id: id, name, id: `msg-${id}`, ...extra }),
  ]
}

const contentOf = (m) => m.content
const isStub = (m) => typeof m.content === 'string' && m.content.startsWith(HEADER)
const byCallId = (list, id) => list.find((m) => m.tool_call_id === id)

// A snapshot of everything a message carries, to prove nothing was mutated.
const snapshot = (list) => list.map((m) => JSON.stringify({ ...m.lc_kwargs, c: m.content, rm: m.response_metadata, ak: m.additional_kwargs }))

describe('compactToolMessages: what gets compacted', () => {
  const A = text('alpha', 20000)
  const B = text('beta', 20000)
  const C = text('gamma', 20000)
  const small = text('small', 500)
  const history = () => [
    new SystemMessage('sys'),
    new HumanMessage('turn 1'),
    ...exchange('a', 'get_page', { page: 1 }, A),
    ...exchange('s', 'get_page', { page: 9 }, small),
    ...exchange('b', 'get_page', { page: 2 }, B),
    new AIMessage('answer 1'),
    new HumanMessage('turn 2'),
    ...exchange('c', 'get_page', { page: 3 }, C),
  ]

  test('settled results older than keepLastN become stubs; the rest are the same objects', async () => {
    const ledger = new Ledger()
    const input = history()
    const out = await compactToolMessages(input, ledger, OPTS)
    expect(out).not.toBe(input)
    expect(out).toHaveLength(input.length)
    // 'a' is settled and older than the last settled result 'b' → stub.
    expect(isStub(byCallId(out, 'a'))).toBe(true)
    // 'b' is the last settled result (keepLastN 1); 's' is small; 'c' is unsettled.
    for (const id of ['b', 's', 'c']) expect(byCallId(out, id)).toBe(byCallId(input, id))
    // Every non-tool message is passed through as is.
    input.forEach((m, i) => {
      if (m.type !== 'tool') expect(out[i]).toBe(m)
    })
  })

  test('the stub message keeps ids, name, status and kwargs, and is marked with its memId', async () => {
    const ledger = new Ledger()
    const input = [
      new HumanMessage('q'),
      new AIMessage({ content: '', tool_calls: [{ id: 'e1', name: 'query_db', args: { sql: 'select 1' }, type: 'tool_call' }] }),
      new ToolMessage({
        content: A,
        tool_call_id: 'e1',
        name: 'query_db',
        id: 'tm-e1',
        status: 'error',
        additional_kwargs: { trace: 'x1' },
        response_metadata: { latency: 12 },
      }),
      new HumanMessage('next'),
    ]
    const out = await compactToolMessages(input, ledger, { ...OPTS, keepLastN: 0 })
    const m = out[2]
    expect(ToolMessage.isInstance(m)).toBe(true)
    expect(m).not.toBe(input[2])
    expect(m.tool_call_id).toBe('e1')
    expect(m.name).toBe('query_db')
    expect(m.id).toBe('tm-e1')
    expect(m.status).toBe('error')
    expect(m.additional_kwargs).toEqual({ trace: 'x1' })
    const memId = memIdFor('e1', A)
    expect(m.response_metadata).toEqual({ latency: 12, tool_memory: { memId, compacted: true } })
    // The stub is exactly what the ledger makes of this result, with the tool call's args.
    const handle = ledger.recordSync({ toolCallId: 'e1', toolName: 'query_db', toolArgs: { sql: 'select 1' }, content: A })
    expect(m.content).toBe(handle.stub)
    expect(m.content).toContain(`mem=${memId}`)
    // The original result is in the ledger, in full.
    expect(ledger.fetchSync(memId, { format: 'full' })).toBe(A)
  })

  test('never mutates its input, its messages or their fields', async () => {
    const ledger = new Ledger()
    const input = history()
    const before = snapshot(input)
    const copy = input.slice()
    await compactToolMessages(input, ledger, { ...OPTS, keepLastN: 0, compactAfter: 'arrival' })
    expect(input).toEqual(copy)
    input.forEach((m, i) => expect(m).toBe(copy[i]))
    expect(snapshot(input)).toEqual(before)
  })

  test('is idempotent: compacting a compacted list changes nothing', async () => {
    const ledger = new Ledger()
    const once = await compactToolMessages(history(), ledger, { ...OPTS, keepLastN: 0 })
    const twice = await compactToolMessages(once, ledger, { ...OPTS, keepLastN: 0 })
    expect(twice.map(contentOf)).toEqual(once.map(contentOf))
    once.forEach((m, i) => expect(twice[i]).toBe(m))
    // Also under the harshest options: a stub is never compacted again.
    const harsh = await compactToolMessages(once, ledger, { keepLastN: 0, sizeChars: 0, evictChars: 0, compactAfter: 'arrival' })
    for (const id of ['a', 'b']) expect(byCallId(harsh, id)).toBe(byCallId(once, id))
  })

  test('keepLastN 0 compacts every settled result over sizeChars, and only those', async () => {
    const ledger = new Ledger()
    const out = await compactToolMessages(history(), ledger, { ...OPTS, keepLastN: 0 })
    expect(['a', 'b', 's', 'c'].map((id) => isStub(byCallId(out, id)))).toEqual([true, true, false, false])
  })

  test('keepLastN counts results by position, any size', async () => {
    const ledger = new Ledger()
    // keepLastN 2 keeps 'b' and the small 's' (the two most recent settled), so only 'a' goes.
    const out = await compactToolMessages(history(), ledger, { ...OPTS, keepLastN: 2 })
    expect(['a', 'b', 's', 'c'].map((id) => isStub(byCallId(out, id)))).toEqual([true, false, false, false])
    const out3 = await compactToolMessages(history(), ledger, { ...OPTS, keepLastN: 3 })
    expect(out3.some(isStub)).toBe(false)
  })

  test("compactAfter 'turn' leaves the current turn alone; 'arrival' keeps only the last N", async () => {
    const ledger = new Ledger()
    const input = [...history(), ...exchange('d', 'get_page', { page: 4 }, text('delta', 20000))]
    const settled = await compactToolMessages(input, ledger, { ...OPTS, keepLastN: 0, compactAfter: 'turn' })
    expect(['a', 'b', 'c', 'd'].map((id) => isStub(byCallId(settled, id)))).toEqual([true, true, false, false])
    const unsettled = await compactToolMessages(input, ledger, { ...OPTS, keepLastN: 1, compactAfter: 'arrival' })
    expect(['a', 'b', 'c', 'd'].map((id) => isStub(byCallId(unsettled, id)))).toEqual([true, true, true, false])
    // No HumanMessage at all: nothing is settled.
    const noHuman = input.filter((m) => m.type !== 'human')
    const out = await compactToolMessages(noHuman, ledger, { ...OPTS, keepLastN: 0, compactAfter: 'turn' })
    expect(out.some(isStub)).toBe(false)
  })

  test('sizeChars is counted in code points and is inclusive', async () => {
    const ledger = new Ledger()
    const emoji = '😀'.repeat(20000) // 20,000 code points, 40,000 UTF-16 units
    const input = [
      new HumanMessage('q'),
      ...exchange('u1', 'emoji', {}, emoji),
      ...exchange('u2', 'emoji', {}, emoji + 'x'),
      ...exchange('u3', 'last', {}, 'tail'),
      new HumanMessage('next'),
    ]
    const out = await compactToolMessages(input, ledger, { ...OPTS, sizeChars: 20000 })
    expect(byCallId(out, 'u1')).toBe(byCallId(input, 'u1'))
    expect(isStub(byCallId(out, 'u2'))).toBe(true)
    expect(byCallId(out, 'u2').content).toContain(' size=20001 chars\n')
  })
})

describe('compactToolMessages: evicted results', () => {
  const giant = JSON.stringify({ rows: Array.from({ length: 2500 }, (_, i) => ({ id: i, sku: `SKU-${i}`, price: i / 4 })) })

  test('a result over evictChars is a stub from its first appearance, with a 2,000-char preview', async () => {
    expect(giant.length).toBeGreaterThan(80000)
    const ledger = new Ledger()
    const input = [new HumanMessage('q'), ...exchange('g', 'catalog', { all: true }, giant)]
    const out = await compactToolMessages(input, ledger, { ...OPTS, namespace: 'n1' })
    const m = byCallId(out, 'g')
    const memId = memIdFor('g', giant)
    expect(m.content).toBe(await ledger.stub(memId, { namespace: 'n1', previewChars: 2000 }))
    // The longer preview: the model never saw the body, so it gets its first 2,000 characters.
    expect(m.content.includes(giant.slice(0, 2000))).toBe(true)
    expect(m.content.includes(giant.slice(0, 2001))).toBe(false)
    expect(m.content.length).toBeLessThan(giant.length / 20)
    // The normal stub is shorter: its preview is the ledger's default.
    expect((await ledger.stub(memId, { namespace: 'n1' })).includes(giant.slice(0, 1000))).toBe(false)
  })

  test('the evicted stub stays byte-identical once the result is also old', async () => {
    const ledger = new Ledger()
    const turn1 = [new HumanMessage('q'), ...exchange('g', 'catalog', {}, giant)]
    const first = await compactToolMessages(turn1, ledger, OPTS)
    const turn3 = [...turn1, new AIMessage('ok'), new HumanMessage('q2'), ...exchange('p', 'page', {}, text('p', 20000)), new AIMessage('ok'), new HumanMessage('q3')]
    const later = await compactToolMessages(turn3, ledger, OPTS)
    expect(byCallId(later, 'g').content).toBe(byCallId(first, 'g').content)
  })

  test('evictChars Infinity disables eviction; evictPreviewChars changes the preview', async () => {
    const ledger = new Ledger()
    const input = [new HumanMessage('q'), ...exchange('g', 'catalog', {}, giant)]
    const off = await compactToolMessages(input, ledger, { ...OPTS, evictChars: Infinity })
    expect(byCallId(off, 'g')).toBe(byCallId(input, 'g'))
    const short = await compactToolMessages(input, ledger, { ...OPTS, evictPreviewChars: 300 })
    expect(byCallId(short, 'g').content).toBe(await ledger.stub(memIdFor('g', giant), { previewChars: 300 }))
  })
})

describe('compactToolMessages: message shapes', () => {
  const big = text('list', 12000)

  test('list content: the text blocks are joined and recorded', async () => {
    const ledger = new Ledger()
    const parts = [big.slice(0, 5000), big.slice(5000)]
    const input = [
      new HumanMessage('q'),
      new AIMessage({ content: '', tool_calls: [{ id: 'l1', name: 'search', args: { q: 'x' }, type: 'tool_call' }] }),
      new ToolMessage({ content: parts.map((t) => ({ type: 'text', text: t })), tool_call_id: 'l1', name: 'search' }),
      new HumanMessage('next'),
    ]
    const out = await compactToolMessages(input, ledger, { ...OPTS, keepLastN: 0 })
    const memId = memIdFor('l1', big)
    expect(out[2].response_metadata.tool_memory).toEqual({ memId, compacted: true })
    expect(ledger.fetchSync(memId, { format: 'full' })).toBe(big)
    expect(typeof out[2].content).toBe('string')
  })

  test('list content with an image is compacted block by block; with another non-text block, never', async () => {
    const ledger = new Ledger()
    const input = [
      new HumanMessage('q'),
      ...exchange('i1', 'screenshot', {}, [{ type: 'text', text: big }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }]),
      ...exchange('i2', 'search', {}, [{ type: 'text', text: big }, { type: 'search_result', source: 'x' }]),
      new HumanMessage('next'),
    ]
    const out = await compactToolMessages(input, ledger, { ...OPTS, keepLastN: 0 })
    const lines = String(out[2].content).split('\n')
    expect(lines[0]).toBe('[symfonic.tool_memory v2]')
    expect(lines.at(-1)).toMatch(/^block 2: image opaque \(format not recognised\) \[declared image\/png, bytes disagree\], 3 bytes\. To see it again: recall_tool_result\(mem_id="trm_[0-9a-f]{12}"\)$/)
    expect(out[4]).toBe(input[4])
  })

  test('a ToolMessage without a tool_call_id is never compacted', async () => {
    const ledger = new Ledger()
    const orphan = new ToolMessage({ content: big, tool_call_id: '', name: 'x' })
    const input = [new HumanMessage('q'), orphan, new HumanMessage('next')]
    const out = await compactToolMessages(input, ledger, { ...OPTS, keepLastN: 0, sizeChars: 10, evictChars: 10 })
    expect(out[1]).toBe(orphan)
  })

  test('the tool name and args come from the AIMessage tool call when the ToolMessage has no name', async () => {
    const ledger = new Ledger()
    const input = [
      new HumanMessage('q'),
      new AIMessage({ content: '', tool_calls: [{ id: 'n1', name: 'lookup_orders', args: { customer: 'ACME', year: 2024 }, type: 'tool_call' }] }),
      new ToolMessage({ content: big, tool_call_id: 'n1' }),
      new HumanMessage('next'),
    ]
    const out = await compactToolMessages(input, ledger, { ...OPTS, keepLastN: 0 })
    expect(out[2].content).toContain('tool=lookup_orders call_id=n1')
    const expected = ledger.recordSync({ toolCallId: 'n1', toolName: 'lookup_orders', toolArgs: { customer: 'ACME', year: 2024 }, content: big })
    expect(out[2].content).toBe(expected.stub)
  })

  test('a result with no matching tool call and no name is recorded as unknown_tool', async () => {
    const ledger = new Ledger()
    const input = [new HumanMessage('q'), new ToolMessage({ content: big, tool_call_id: 'lost' }), new HumanMessage('next')]
    const out = await compactToolMessages(input, ledger, { ...OPTS, keepLastN: 0 })
    expect(out[1].content).toBe(ledger.recordSync({ toolCallId: 'lost', toolName: 'unknown_tool', toolArgs: {}, content: big }).stub)
  })

  test('exempt tools are never compacted and are not counted by keepLastN', async () => {
    const ledger = new Ledger()
    const input = [
      new HumanMessage('q'),
      ...exchange('p1', 'get_page', {}, text('p1', 20000)),
      ...exchange('k1', 'keep_me', {}, text('k1', 20000)),
      ...exchange('p2', 'get_page', {}, text('p2', 20000)),
      new HumanMessage('next'),
    ]
    // Nothing exempt: keepLastN 1 keeps p2, the last result.
    const out = await compactToolMessages(input, ledger, OPTS)
    expect(['p1', 'k1', 'p2'].map((id) => isStub(byCallId(out, id)))).toEqual([true, true, false])
    // keep_me exempt: it stays in full and is not the one keepLastN keeps.
    const out2 = await compactToolMessages(input, ledger, { ...OPTS, exemptTools: ['keep_me'] })
    expect(['p1', 'k1', 'p2'].map((id) => isStub(byCallId(out2, id)))).toEqual([true, false, false])
    expect(byCallId(out2, 'k1')).toBe(byCallId(input, 'k1'))
    // The same through perTool.
    const out3 = await compactToolMessages(input, ledger, { ...OPTS, perTool: { keep_me: { exempt: true } } })
    expect(out3.map(contentOf)).toEqual(out2.map(contentOf))
  })
})

describe('compactToolMessages: determinism and cost', () => {
  // A long session: 50 large results over 200 messages and several turns.
  function session(nResults = 50) {
    const list = [new SystemMessage('system')]
    for (let i = 0; i < nResults; i++) {
      if (i % 5 === 0) list.push(new HumanMessage(`turn ${i / 5}`))
      list.push(...exchange(`call_${i}`, i % 2 ? 'get_page' : 'search', { i }, text(`r${i}`, 9000 + i * 37)))
      list.push(new AIMessage(`note ${i}`))
    }
    return list
  }

  test('decisions are a pure function of the list and options: fresh ledger and objects decide the same', async () => {
    const a = await compactToolMessages(session(), new Ledger(), OPTS)
    const b = await compactToolMessages(session(), new Ledger(), OPTS)
    expect(b.map(contentOf)).toEqual(a.map(contentOf))
    expect(a.filter(isStub).length).toBeGreaterThan(30)
  })

  test('once compacted, a result stays compacted with byte-identical stub text as the history grows', async () => {
    const ledger = new Ledger()
    const full = session(30)
    const seen = new Map()
    for (let end = 10; end <= full.length; end += 7) {
      const out = await compactToolMessages(full.slice(0, end), ledger, OPTS)
      for (const m of out) {
        if (m.type !== 'tool') continue
        if (seen.has(m.tool_call_id)) expect(m.content).toBe(seen.get(m.tool_call_id))
        else if (isStub(m)) seen.set(m.tool_call_id, m.content)
      }
    }
    expect(seen.size).toBeGreaterThan(15)
  })

  test('a pass with nothing new to record sends nothing across the JS/Rust boundary', async () => {
    const ledger = new Ledger()
    const calls = []
    for (const name of ['record', 'recordSync', 'stub', 'handle', 'fetch', 'fetchSync']) {
      const orig = ledger[name].bind(ledger)
      ledger[name] = (...args) => {
        calls.push(name)
        return orig(...args)
      }
    }
    const list = session()
    const first = await compactToolMessages(list, ledger, OPTS)
    const firstCalls = calls.length
    expect(firstCalls).toBeGreaterThan(0)
    const second = await compactToolMessages(list, ledger, OPTS)
    expect(calls.length).toBe(firstCalls)
    expect(second.map(contentOf)).toEqual(first.map(contentOf))
    // The same history rebuilt from scratch (as after a checkpoint reload): still nothing crosses.
    const third = await compactToolMessages(session(), ledger, OPTS)
    expect(calls.length).toBe(firstCalls)
    expect(third.map(contentOf)).toEqual(first.map(contentOf))
    // A changed payload under a known tool_call_id is recorded again (it is another result).
    const changed = session()
    const idx = changed.findIndex((m) => m.tool_call_id === 'call_0')
    changed[idx] = new ToolMessage({ content: text('changed', 9000), tool_call_id: 'call_0', name: 'search' })
    const fourth = await compactToolMessages(changed, ledger, OPTS)
    expect(calls.length).toBeGreaterThan(firstCalls)
    expect(fourth[idx].response_metadata.tool_memory.memId).toBe(memIdFor('call_0', text('changed', 9000)))
  })

  test('a namespace keeps results apart', async () => {
    const ledger = new Ledger()
    const list = session(10)
    const out = await compactToolMessages(list, ledger, { ...OPTS, namespace: 'thread-a' })
    const memId = out.find(isStub).response_metadata.tool_memory.memId
    expect(await ledger.handle(memId, { namespace: 'thread-a' })).not.toBeNull()
    expect(await ledger.handle(memId, { namespace: 'thread-b' })).toBeNull()
    expect(await ledger.handle(memId)).toBeNull()
  })
})

describe('options', () => {
  const list = () => [new HumanMessage('q'), ...exchange('a', 't', {}, text('a', 30000)), ...exchange('b', 't', {}, text('b', 30000)), new HumanMessage('n')]

  test('unset options come from the DEFAULTS table of the cache model', async () => {
    for (const cacheModel of ['prefix', 'breakpoint']) {
      const implicit = await compactToolMessages(list(), new Ledger(), { cacheModel })
      const explicit = await compactToolMessages(list(), new Ledger(), { ...DEFAULTS[cacheModel], cacheModel })
      expect(implicit.map(contentOf)).toEqual(explicit.map(contentOf))
    }
    const none = await compactToolMessages(list(), new Ledger())
    const prefix = await compactToolMessages(list(), new Ledger(), { ...DEFAULTS.prefix })
    expect(none.map(contentOf)).toEqual(prefix.map(contentOf))
  })

  test('bad options are programmer errors: TypeError', async () => {
    const ledger = new Ledger()
    await expect(compactToolMessages(list(), ledger, { keepLastN: -1 })).rejects.toThrow(TypeError)
    await expect(compactToolMessages(list(), ledger, { sizeChars: Number.NaN })).rejects.toThrow(/sizeChars/)
    await expect(compactToolMessages(list(), ledger, { cacheModel: 'lru' })).rejects.toThrow(/cacheModel/)
    await expect(compactToolMessages(list(), ledger, { exemptTools: 'recall_tool_result' })).rejects.toThrow(/exemptTools/)
    await expect(compactToolMessages('nope', ledger)).rejects.toThrow(TypeError)
    await expect(compactToolMessages(list(), {})).rejects.toThrow(/ledger/)
  })

  test('one cost model: the horizon decides a medium result, giants are evicted anyway', async () => {
    const ledger = new Ledger()
    const giant = text('giant', 120000)
    const input = [new HumanMessage('q'), ...exchange('m', 't', {}, text('m', 30000)), ...exchange('g', 't', {}, giant), ...exchange('z', 't', {}, 'z'), new HumanMessage('n')]
    // No later call to repay the rewrite: the medium result stays; the giant is never sent in full.
    const none = await compactToolMessages(input, ledger, { ...OPTS, horizonCalls: 0 })
    expect(isStub(byCallId(none, 'm'))).toBe(false)
    expect(isStub(byCallId(none, 'g'))).toBe(true)
    // Over the horizon 'auto' assumes (at least four calls), dropping 29,000 chars pays.
    const auto = await compactToolMessages(input, ledger, { ...OPTS, horizonCalls: 'auto' })
    expect(isStub(byCallId(auto, 'm'))).toBe(true)
    // The gate of the first release is gone: its option is refused.
    await expect(compactToolMessages(input, ledger, { ...OPTS, gate: { inputPricePerMTok: 3 } })).rejects.toThrow(/unknown option "gate"/)
  })
})

describe('cacheModelFor', () => {
  test('Anthropic and Claude models cache at breakpoints, others by prefix', () => {
    class ChatAnthropic {
      _llmType() {
        return 'anthropic'
      }
    }
    class ChatOpenAI {
      _llmType() {
        return 'openai'
      }
    }
    expect(cacheModelFor(new ChatAnthropic())).toBe('breakpoint')
    expect(cacheModelFor(new ChatOpenAI())).toBe('prefix')
    expect(cacheModelFor({ _llmType: () => 'bedrock', model: 'anthropic.claude-sonnet-4-5' })).toBe('breakpoint')
    expect(cacheModelFor('anthropic:claude-sonnet-4-5')).toBe('breakpoint')
    expect(cacheModelFor('openai:gpt-4.1')).toBe('prefix')
    expect(cacheModelFor(undefined)).toBe('prefix')
  })
})
