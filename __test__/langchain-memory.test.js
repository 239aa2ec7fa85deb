'use strict'
// The LangChain.js integration end to end: real createAgent / createReactAgent,
// real MemorySaver, and a small scripted chat model that records exactly what
// it receives (LangChain's FakeToolCallingModel echoes messages into its
// replies, which would distort every size measured here).

const { Ledger, memIdFor, recall } = require('..')
const { createRecallToolResultTool, toolMemoryMiddleware, toolMemoryPreModelHook, toolPaletteMiddleware } = require('../langchain')
const { DEFAULTS } = require('../langchain/memory.js')
const { createAgent } = require('langchain')
const { createReactAgent } = require('@langchain/langgraph/prebuilt')
const { MemorySaver } = require('@langchain/langgraph')
const { ScriptedChatModel, textOf } = require('./support/scripted-model.js')
const { AIMessage, ToolMessage, HumanMessage } = require('@langchain/core/messages')
const { tool } = require('@langchain/core/tools')
const { convertToOpenAITool } = require('@langchain/core/utils/function_calling')
const { toJsonSchema } = require('@langchain/core/utils/json_schema')
const { z } = require('zod')

const HEADER = '[symfonic.tool_memory v2]'
const OPTS = { keepLastN: 1, sizeChars: 8000, evictChars: 80000, compactAfter: 'turn', horizonCalls: Infinity }

const say = (content) => () => new AIMessage(content)
const callTool = (id, name, args) => () => new AIMessage({ content: '', tool_calls: [{ id, name, args, type: 'tool_call' }] })
const memIdIn = (stub) => /mem=(trm_[0-9a-f]{12})/.exec(stub)[1]
const stubOf = (messages, id) => messages.find((m) => m.type === 'tool' && m.tool_call_id === id).content

// ---------------------------------------------------------------------------
// Payloads and tools

const CATALOG = {
  meta: { count: 2400, source: 'test' },
  rows: Array.from({ length: 2400 }, (_, i) => ({ id: i, sku: `SKU-${String(i).padStart(5, '0')}`, price: (i * 7) % 1000 / 4, title: `Item number ${i}` })),
}
const CATALOG_JSON = JSON.stringify(CATALOG)
const page = (n) => `Page ${n}\n` + `line of page ${n} with some words in it.\n`.repeat(500) // ~ 20,000 chars

const catalogTool = tool(async () => CATALOG_JSON, {
  name: 'get_catalog',
  description: 'The full product catalog as JSON.',
  schema: z.object({ region: z.string() }),
})
const pageTool = tool(async ({ n }) => page(n), {
  name: 'get_page',
  description: 'One page of the manual.',
  schema: z.object({ n: z.number() }),
})

const thread = (id) => ({ configurable: { thread_id: id } })
const user = (content) => ({ messages: [new HumanMessage(content)] })
const toolMsg = (messages, id) => messages.find((m) => m.type === 'tool' && m.tool_call_id === id)
const toolDefs = (tools) => JSON.stringify(tools.map((t) => convertToOpenAITool(t)))

// ---------------------------------------------------------------------------

describe('createAgent + toolMemoryMiddleware', () => {
  // Three turns: two pages and the catalog, then a page, then a last answer.
  function build(ledger = new Ledger(), checkpointer = new MemorySaver()) {
    const log = { calls: [] }
    const script = [
      callTool('p1', 'get_page', { n: 1 }), // call 0, turn 1
      callTool('p2', 'get_page', { n: 2 }), // call 1
      callTool('cat', 'get_catalog', { region: 'eu' }), // call 2
      say('turn 1 done'), // call 3
      callTool('p3', 'get_page', { n: 3 }), // call 4, turn 2
      say('turn 2 done'), // call 5
      say('turn 3 done'), // call 6, turn 3
    ]
    const agent = createAgent({
      model: new ScriptedChatModel(script, log),
      tools: [pageTool, catalogTool],
      middleware: [toolMemoryMiddleware({ ledger, ...OPTS })],
      checkpointer,
    })
    return { agent, log, ledger, checkpointer }
  }

  async function runThreeTurns(ctx, id = 'th-1') {
    await ctx.agent.invoke(user('read pages 1-2 and the catalog'), thread(id))
    await ctx.agent.invoke(user('now page 3'), thread(id))
    await ctx.agent.invoke(user('thanks'), thread(id))
    return ctx
  }

  const originals = { p1: page(1), p2: page(2), p3: page(3), cat: CATALOG_JSON }

  test('the model sees old large results as stubs, recent ones in full, evicted ones as stubs from the start', async () => {
    const { log, ledger } = await runThreeTurns(build())
    expect(log.calls).toHaveLength(7)
    const seen = (call, id) => toolMsg(log.calls[call].messages, id).content
    // Turn 1: nothing settled, pages in full; the catalog is over evictChars: a stub at once.
    expect(seen(1, 'p1')).toBe(originals.p1)
    expect(seen(2, 'p1')).toBe(originals.p1)
    expect(seen(2, 'p2')).toBe(originals.p2)
    const catMem = memIdFor('cat', CATALOG_JSON)
    expect(seen(3, 'cat')).toBe(await ledger.stub(catMem, { namespace: 'th-1', previewChars: 2000 }))
    expect(seen(3, 'cat').includes(CATALOG_JSON.slice(0, 2000))).toBe(true)
    // Turn 2: p1 and p2 are settled and older than the last settled result (the catalog): stubs.
    expect(seen(4, 'p1')).toBe((await ledger.handle(memIdFor('p1', originals.p1), { namespace: 'th-1' })).stub)
    expect(seen(4, 'p2')).toBe((await ledger.handle(memIdFor('p2', originals.p2), { namespace: 'th-1' })).stub)
    expect(seen(5, 'p3')).toBe(originals.p3) // fresh, inside the turn
    // Turn 3: p3 is now the last settled result and stays; everything older is a stub.
    expect(seen(6, 'p3')).toBe(originals.p3)
    for (const id of ['p1', 'p2', 'cat']) expect(seen(6, id).startsWith(HEADER)).toBe(true)
    // Every stub message says which memId it stands for.
    const m = toolMsg(log.calls[6].messages, 'p1')
    expect(m.response_metadata.tool_memory).toEqual({ memId: memIdFor('p1', originals.p1), compacted: true })
    expect(m.name).toBe('get_page')
  })

  test('stubs are byte-identical across calls, and a compacted result stays compacted', async () => {
    const { log } = await runThreeTurns(build())
    const first = new Map()
    for (const call of log.calls) {
      for (const m of call.messages) {
        if (m.type !== 'tool') continue
        if (first.has(m.tool_call_id)) expect(m.content).toBe(first.get(m.tool_call_id))
        else if (m.content.startsWith(HEADER)) first.set(m.tool_call_id, m.content)
      }
    }
    expect([...first.keys()].sort()).toEqual(['cat', 'p1', 'p2'])
  })

  test('recall_tool_result is bound on every call, identical, from the first: the cached tool block never changes', async () => {
    const { log } = await runThreeTurns(build())
    const bound = log.calls[0].tools
    expect(bound.map((t) => t.name)).toEqual(['get_page', 'get_catalog', 'recall_tool_result'])
    for (const call of log.calls) {
      call.tools.forEach((t, i) => expect(t).toBe(bound[i]))
      expect(toolDefs(call.tools)).toBe(toolDefs(bound))
    }
    // Compaction starts later (the catalog, over evictChars, is a stub from call 3 on): the tools do not move with it.
    expect(log.calls.slice(0, 3).every((c) => c.messages.every((m) => !textOf(m.content).startsWith(HEADER)))).toBe(true)
    expect(log.calls.slice(3).some((c) => c.messages.some((m) => textOf(m.content).startsWith(HEADER)))).toBe(true)
  })

  test("with compactAfter 'turn', each call within a turn extends the previous prompt", async () => {
    const { log } = await runThreeTurns(build())
    const key = (m) => `${m.type}|${m.tool_call_id ?? ''}|${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`
    const humans = (msgs) => msgs.filter((m) => m.type === 'human').length
    let sameTurnPairs = 0
    for (let i = 1; i < log.calls.length; i++) {
      const prev = log.calls[i - 1].messages
      const cur = log.calls[i].messages
      if (humans(prev) !== humans(cur)) continue
      sameTurnPairs++
      expect(cur.length).toBeGreaterThan(prev.length)
      expect(cur.slice(0, prev.length).map(key)).toEqual(prev.map(key))
    }
    expect(sameTurnPairs).toBe(4) // 0→1, 1→2, 2→3 and 4→5
  })

  test('each result crosses into the ledger once over the whole conversation', async () => {
    const ledger = new Ledger()
    const counts = { record: 0, recordSync: 0, stub: 0, fetch: 0, fetchSync: 0 }
    for (const name of Object.keys(counts)) {
      const orig = ledger[name].bind(ledger)
      ledger[name] = (...args) => {
        counts[name]++
        return orig(...args)
      }
    }
    // Seven model calls over three invokes, each reloading the state from the checkpointer.
    await runThreeTurns(build(ledger))
    // p1, p2 and the catalog are recorded once each; the catalog's long-preview stub is read once.
    expect(counts).toEqual({ record: 3, recordSync: 0, stub: 1, fetch: 0, fetchSync: 0 })
  })

  test('the state and the MemorySaver checkpoint keep the originals', async () => {
    const ctx = await runThreeTurns(build())
    const state = await ctx.agent.getState(thread('th-1'))
    for (const [id, body] of Object.entries(originals)) {
      const m = toolMsg(state.values.messages, id)
      expect(m.content).toBe(body)
      expect(m.response_metadata && m.response_metadata.tool_memory).toBeUndefined()
    }
    const tuple = await ctx.checkpointer.getTuple(thread('th-1'))
    const saved = tuple.checkpoint.channel_values.messages
    for (const [id, body] of Object.entries(originals)) expect(toolMsg(saved, id).content).toBe(body)
    expect(saved.some((m) => typeof m.content === 'string' && m.content.startsWith(HEADER))).toBe(false)
  })

  test('the ledger namespace is the thread id', async () => {
    const ctx = await runThreeTurns(build(), 'thread-x')
    const memId = memIdFor('cat', CATALOG_JSON)
    expect(await ctx.ledger.handle(memId, { namespace: 'thread-x' })).not.toBeNull()
    expect(await ctx.ledger.handle(memId, { namespace: '' })).toBeNull()
  })

  test('the cache model is picked from the wrapped model (Anthropic → breakpoint defaults)', async () => {
    const saved = { breakpoint: DEFAULTS.breakpoint, prefix: DEFAULTS.prefix }
    // Make the two policies observably different for the length of this test.
    DEFAULTS.breakpoint = { ...saved.breakpoint, keepLastN: 0, compactAfter: 'arrival', sizeChars: 100, evictChars: Infinity, horizonCalls: Infinity }
    DEFAULTS.prefix = { ...saved.prefix, keepLastN: 5, compactAfter: 'arrival', sizeChars: 100, evictChars: Infinity, horizonCalls: Infinity }
    try {
      const runWith = async (llmType) => {
        const log = { calls: [] }
        const agent = createAgent({
          model: new ScriptedChatModel([callTool('p1', 'get_page', { n: 1 }), say('done')], log, llmType),
          tools: [pageTool],
          middleware: [toolMemoryMiddleware()],
        })
        await agent.invoke(user('go'), thread('cm'))
        return textOf(toolMsg(log.calls[1].messages, 'p1').content).startsWith(HEADER)
      }
      expect(await runWith('anthropic')).toBe(true) // breakpoint: keepLastN 0
      expect(await runWith('openai')).toBe(false) // prefix: keepLastN 5
    } finally {
      DEFAULTS.breakpoint = saved.breakpoint
      DEFAULTS.prefix = saved.prefix
    }
  })

  test('works together with toolPaletteMiddleware, in either order', async () => {
    for (const order of ['memory-first', 'palette-first']) {
      const log = { calls: [] }
      const ledger = new Ledger()
      const memory = toolMemoryMiddleware({ ledger, ...OPTS })
      const palette = toolPaletteMiddleware({ roleTools: { action: ['get_catalog'] } })
      const script = [
        callTool('cat', 'get_catalog', { region: 'eu' }),
        (messages) => callTool('r1', 'recall_tool_result', { mem_id: memIdIn(stubOf(messages, 'cat')), offset: 10, max_chars: 25 })(),
        say('done'),
      ]
      const agent = createAgent({
        model: new ScriptedChatModel(script, log),
        tools: [pageTool, catalogTool],
        middleware: order === 'memory-first' ? [memory, palette] : [palette, memory],
      })
      const result = await agent.invoke(user('go'), thread(order))
      // The palette narrows the tools; the recall tool survives it, on every call.
      for (const call of log.calls) expect(call.tools.map((t) => t.name)).toEqual(['get_catalog', 'recall_tool_result'])
      // Compaction still applies, and the recall tool runs through the palette's guard.
      const memId = memIdFor('cat', CATALOG_JSON)
      expect(toolMsg(log.calls[1].messages, 'cat').content).toBe(await ledger.stub(memId, { namespace: order, previewChars: 2000 }))
      expect(toolMsg(result.messages, 'r1').content).toBe(CATALOG_JSON.slice(10, 35))
      expect(toolMsg(result.messages, 'cat').content).toBe(CATALOG_JSON)
    }
  })
})

// ---------------------------------------------------------------------------

describe('recall_tool_result through the agent', () => {
  test('json_path, query, offset/max_chars and bad arguments: right answers, structured errors, no exception', async () => {
    const ledger = new Ledger()
    const log = { calls: [] }
    let memId
    const script = [
      callTool('cat', 'get_catalog', { region: 'eu' }),
      (messages) => {
        memId = memIdIn(stubOf(messages, 'cat'))
        const r = (id, args) => ({ id, name: 'recall_tool_result', args, type: 'tool_call' })
        return new AIMessage({
          content: '',
          tool_calls: [
            r('r_path', { mem_id: memId, json_path: 'rows.3.price' }),
            r('r_meta', { mem_id: memId, json_path: 'meta.count' }),
            r('r_query', { mem_id: memId, query: 'SKU-00042' }),
            r('r_range', { mem_id: memId, offset: 5, max_chars: 4 }),
            r('r_full', { mem_id: memId, format: 'full' }),
            r('r_summary', { mem_id: memId }),
            r('r_badformat', { mem_id: memId, format: 'everything' }),
            r('r_unknown', { mem_id: 'trm_000000000000' }),
            r('r_empty', { mem_id: '' }),
            r('r_number', { mem_id: 42 }),
            r('r_missing', {}),
            r('r_badoffset', { mem_id: memId, offset: 'ten', max_chars: null }),
            r('r_badquery', { mem_id: memId, query: { sku: 1 } }),
            r('r_numstrings', { mem_id: memId, offset: '5', max_chars: '4' }),
            r('r_badpath', { mem_id: memId, json_path: 'rows.99999.price' }),
          ],
        })
      },
      say('done'),
    ]
    const agent = createAgent({
      model: new ScriptedChatModel(script, log),
      tools: [catalogTool],
      middleware: [toolMemoryMiddleware({ ledger, ...OPTS })],
    })
    const result = await agent.invoke(user('prices?'), thread('rt'))
    const answer = (id) => {
      const m = toolMsg(result.messages, id)
      expect(m.status).not.toBe('error')
      expect(typeof m.content).toBe('string')
      return m.content
    }
    const ns = { namespace: 'rt' }
    expect(answer('r_path')).toBe(JSON.stringify(CATALOG.rows[3].price))
    expect(answer('r_meta')).toBe('2400')
    expect(answer('r_query')).toContain('"sku":"SKU-00042"')
    expect(answer('r_query')).toBe(await recall(ledger, memId, { ...ns, query: 'SKU-00042' }))
    expect(answer('r_range')).toBe(CATALOG_JSON.slice(5, 9))
    // Full is capped at 50,000 characters, the marker naming the memId.
    expect(answer('r_full').length).toBeLessThanOrEqual(50000)
    expect(answer('r_full').startsWith(CATALOG_JSON.slice(0, 40000))).toBe(true)
    expect(answer('r_full').includes(memId)).toBe(true)
    expect(answer('r_summary')).toBe(await ledger.stub(memId, { namespace: 'rt' }))
    expect(answer('r_badformat')).toMatch(/^\[recall: format "everything" is not a format: 'summary' \(the stub\), 'full' \(the whole result\), 'count'/)
    expect(answer('r_unknown')).toBe("[tool_memory not found: trm_000000000000 in namespace 'rt']")
    const badId = '[tool_memory error: mem_id must be a non-empty string]'
    expect(answer('r_empty')).toBe(badId)
    expect(answer('r_number')).toBe(badId)
    expect(answer('r_missing')).toBe(badId)
    expect(answer('r_badoffset')).toBe('[tool_memory error: offset must be an integer, got "ten"]')
    expect(answer('r_badquery')).toBe('[tool_memory error: query must be a string, got {"sku":1}]')
    expect(answer('r_numstrings')).toBe(CATALOG_JSON.slice(5, 9))
    expect(answer('r_badpath')).toMatch(/^\[recall: json_path 'rows\.99999\.price' not found/)
    // The recall answers themselves are never compacted.
    const last = log.calls[2].messages
    expect(toolMsg(last, 'r_full').content).toBe(answer('r_full'))
  })
})

// ---------------------------------------------------------------------------

describe('lossless across restarts, isolated across threads', () => {
  test('a fresh Ledger with the same checkpointer and thread still answers, from the state', async () => {
    const checkpointer = new MemorySaver()
    const memId = memIdFor('cat', CATALOG_JSON)
    // Process 1: the catalog arrives and is stubbed.
    const ledger1 = new Ledger()
    const log1 = { calls: [] }
    const agent1 = createAgent({
      model: new ScriptedChatModel([callTool('cat', 'get_catalog', { region: 'eu' }), say('ok')], log1),
      tools: [catalogTool],
      middleware: [toolMemoryMiddleware({ ledger: ledger1, ...OPTS })],
      checkpointer,
    })
    await agent1.invoke(user('catalog please'), thread('t-restart'))
    expect(memIdIn(toolMsg(log1.calls[1].messages, 'cat').content)).toBe(memId)

    // Process 2: a new ledger. The entry also vanishes between the model call and
    // the tool call (as after an LRU eviction), so only the state can answer.
    const ledger2 = new Ledger()
    const log2 = { calls: [] }
    const agent2 = createAgent({
      model: new ScriptedChatModel(
        [
          async (messages) => {
            const id = memIdIn(stubOf(messages, 'cat'))
            await ledger2.clear()
            expect(await ledger2.handle(id, { namespace: 't-restart' })).toBeNull()
            return callTool('r1', 'recall_tool_result', { mem_id: id, json_path: 'rows[-1].sku' })()
          },
          say('done'),
        ],
        log2,
      ),
      tools: [catalogTool],
      middleware: [toolMemoryMiddleware({ ledger: ledger2, ...OPTS })],
      checkpointer,
    })
    const result = await agent2.invoke(user('last sku?'), thread('t-restart'))
    expect(toolMsg(result.messages, 'r1').content).toBe(JSON.stringify(CATALOG.rows.at(-1).sku))
    expect(await ledger2.handle(memId, { namespace: 't-restart' })).not.toBeNull()
  })

  test('two threads on one ledger cannot recall each other’s ids', async () => {
    const ledger = new Ledger()
    const memId = memIdFor('cat', CATALOG_JSON)
    const script = [
      callTool('cat', 'get_catalog', { region: 'eu' }), // thread A
      say('A has it'),
      callTool('rb', 'recall_tool_result', { mem_id: memId, json_path: 'meta.count' }), // thread B
      say('B tried'),
      callTool('ra', 'recall_tool_result', { mem_id: memId, json_path: 'meta.count' }), // thread A again
      say('A read it'),
    ]
    const agent = createAgent({
      model: new ScriptedChatModel(script),
      tools: [catalogTool],
      middleware: [toolMemoryMiddleware({ ledger, ...OPTS })],
      checkpointer: new MemorySaver(),
    })
    await agent.invoke(user('catalog'), thread('A'))
    const b = await agent.invoke(user('steal'), thread('B'))
    expect(toolMsg(b.messages, 'rb').content).toBe(`[tool_memory not found: ${memId} in namespace 'B']`)
    const a = await agent.invoke(user('count'), thread('A'))
    expect(toolMsg(a.messages, 'ra').content).toBe('2400')
    expect(await ledger.handle(memId, { namespace: 'A' })).not.toBeNull()
    expect(await ledger.handle(memId, { namespace: 'B' })).toBeNull()
  })
})

// ---------------------------------------------------------------------------

describe('the recall tool on its own', () => {
  test('snake_case model-facing arguments, named and described in a few words (it rides on every request)', () => {
    const t = createRecallToolResultTool(new Ledger())
    expect(t.name).toBe('recall_tool_result')
    const schema = toJsonSchema(t.schema)
    // The reads a model picks from; ignore_case, context and max_chars are read too, and named by the answers.
    expect(Object.keys(schema.properties)).toEqual(['mem_id', 'json_path', 'pattern', 'query', 'lines', 'offset', 'format'])
    // Untyped: any value is read (lib/recall-args.js), "12" as 12; the description says what each is.
    expect(Object.values(schema.properties).every((p) => p.type === undefined)).toBe(true)
    expect(schema.required).toEqual(['mem_id'])
    expect(schema.$schema).toBeUndefined()
    for (const words of ['lines "120-180"', 'pattern: line regex, no look-around', 'query: text', 'offset: read on', 'RFC 9535 (I-Regexp)', 'format: count|paths|raw']) {
      expect(t.description).toContain(words)
    }
    // The whole definition as a provider receives it: shorter than the 602
    // characters of the typed one that said nothing of its arguments.
    expect(JSON.stringify(convertToOpenAITool(t)).length).toBeLessThanOrEqual(380)
    expect(() => createRecallToolResultTool(new Ledger(), { maxOutputChars: 0 })).toThrow(
      new TypeError('createRecallToolResultTool(ledger, options): maxOutputChars must be a whole number of characters, at least 1 (got number 0)'),
    )
    expect(() => createRecallToolResultTool(new Ledger(), { maxOutputchars: 10 })).toThrow(/did you mean "maxOutputChars"\?/)
  })

  test('reads the namespace from configurable.thread_id, or from the given function', async () => {
    const ledger = new Ledger()
    const h = ledger.recordSync({ toolCallId: 'x1', toolName: 't', content: 'hello world', namespace: 'T9' })
    const t = createRecallToolResultTool(ledger)
    expect(await t.invoke({ mem_id: h.memId, format: 'full' }, thread('T9'))).toBe('hello world')
    expect(await t.invoke({ mem_id: h.memId, format: 'full' }, thread('other'))).toBe(`[tool_memory not found: ${h.memId} in namespace 'other']`)
    const custom = createRecallToolResultTool(ledger, { namespace: (c) => `T${c.configurable.tenant}` })
    expect(await custom.invoke({ mem_id: h.memId, query: 'world' }, { configurable: { tenant: 9 } })).toContain('world')
  })

  test('refills from the run state when the ledger misses the id', async () => {
    const ledger = new Ledger()
    const body = JSON.stringify({ a: { b: [1, 2, 3] } })
    const messages = [
      new HumanMessage('q'),
      new AIMessage({ content: '', tool_calls: [{ id: 'k1', name: 'thing', args: {}, type: 'tool_call' }] }),
      new ToolMessage({ content: body, tool_call_id: 'k1', name: 'thing' }),
    ]
    const memId = memIdFor('k1', body)
    const t = createRecallToolResultTool(ledger)
    expect(await t.invoke({ mem_id: memId, json_path: 'a.b[2]' }, { ...thread('s1'), state: { messages } })).toBe('3')
    expect(await ledger.handle(memId, { namespace: 's1' })).not.toBeNull()
    // Without the original in the state, it stays a structured not-found.
    const other = 'trm_ffffffffffff'
    expect(await t.invoke({ mem_id: other }, { ...thread('s1'), state: { messages } })).toBe(`[tool_memory not found: ${other} in namespace 's1']`)
  })

  test('a ledger that throws gives a structured error, not an exception', async () => {
    const broken = {
      fetch() {
        throw new Error('disk on fire')
      },
    }
    const t = createRecallToolResultTool(broken)
    expect(await t.invoke({ mem_id: 'trm_123456789012', format: 'full' })).toBe('[tool_memory error: ledger fetch failed for trm_123456789012]')
  })
})

// ---------------------------------------------------------------------------

describe('createReactAgent + toolMemoryPreModelHook', () => {
  test('the model sees stubs through llmInputMessages, the state keeps originals, recall works', async () => {
    const ledger = new Ledger()
    const hook = toolMemoryPreModelHook({ ledger, ...OPTS })
    expect(hook.ledger).toBe(ledger)
    expect(hook.tool.name).toBe('recall_tool_result')
    const log = { calls: [] }
    const script = [
      callTool('p1', 'get_page', { n: 1 }),
      callTool('cat', 'get_catalog', { region: 'us' }),
      (messages) => callTool('r1', 'recall_tool_result', { mem_id: memIdIn(stubOf(messages, 'cat')), json_path: 'rows.10.title' })(),
      say('turn 1 done'),
      say('turn 2 done'),
    ]
    const checkpointer = new MemorySaver()
    const agent = createReactAgent({
      llm: new ScriptedChatModel(script, log),
      tools: [pageTool, catalogTool, hook.tool],
      preModelHook: hook,
      checkpointer,
    })
    await agent.invoke(user('go'), thread('ra'))
    const final = await agent.invoke(user('and?'), thread('ra'))
    expect(log.calls).toHaveLength(5)
    // The catalog is a stub from its first appearance; p1 in full while the turn lasts.
    const catStub = toolMsg(log.calls[2].messages, 'cat').content
    expect(catStub).toBe(await ledger.stub(memIdFor('cat', CATALOG_JSON), { namespace: 'ra', previewChars: 2000 }))
    expect(toolMsg(log.calls[2].messages, 'p1').content).toBe(page(1))
    // Turn 2: p1 is settled and old → stub; the recall answer is exempt.
    expect(toolMsg(log.calls[4].messages, 'p1').content).toBe((await ledger.handle(memIdFor('p1', page(1)), { namespace: 'ra' })).stub)
    expect(toolMsg(log.calls[4].messages, 'r1').content).toBe(JSON.stringify(CATALOG.rows[10].title))
    expect(toolMsg(log.calls[4].messages, 'cat').content).toBe(catStub)
    // Tools identical on every call.
    for (const call of log.calls) expect(call.tools.map((t) => t.name)).toEqual(['get_page', 'get_catalog', 'recall_tool_result'])
    // The state keeps the originals.
    expect(toolMsg(final.messages, 'cat').content).toBe(CATALOG_JSON)
    expect(toolMsg(final.messages, 'p1').content).toBe(page(1))
  })
})
