'use strict'
// What compaction saved, in the tokens the provider reports (issue 42): a
// usage event per model call, the calibration factor learned from the
// reports, a nonsense report ignored with one warning, the cache check, and
// the thread's totals from its messages, the same after a checkpoint reload.
// The scripted models fill usage_metadata the way @langchain/anthropic (input
// tokens include the cache's; cache_read and cache_creation) and
// @langchain/openai (cache_read only) do.

const fs = require('node:fs')
const path = require('node:path')
const { Ledger } = require('..')
const { toolMemoryMiddleware, toolMemoryPreModelHook, usageTotals } = require('../langchain')
const { createReactAgent } = require('@langchain/langgraph/prebuilt')
const { createAgent } = require('langchain')
const { MemorySaver } = require('@langchain/langgraph')
const { AIMessage, HumanMessage } = require('@langchain/core/messages')
const { tool } = require('@langchain/core/tools')
const { convertToOpenAITool } = require('@langchain/core/utils/function_calling')
const { z } = require('zod')
const { ScriptedChatModel, textOf } = require('./support/scripted-model.js')

const SYSTEM = 'You answer questions about pages. Quote the page you used, and say when a page does not hold the answer.\n'.repeat(60)
const page = (n) => `Page ${n}\n` + `line ${n} of the page, with words about topic ${n}.\n`.repeat(400)
// Real CJK text: CLDR's Japanese language names (fixtures/payloads, Unicode-3.0).
const CLDR = fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'payloads', 'cldr-ja-languages.json'), 'utf8')
const cjkPage = (n) => CLDR.slice(n * 5000, n * 5000 + 12000)
const pageTool = (body = page) => tool(async ({ n }) => body(n), { name: 'get_page', description: 'A page of the book.', schema: z.object({ n: z.number() }) })
const calls = (...cs) => new AIMessage({ content: '', tool_calls: cs.map(([id, name, args]) => ({ id, name, args, type: 'tool_call' })) })
const thread = (id) => ({ configurable: { thread_id: id } })
const user = (content) => ({ messages: [new HumanMessage(content)] })

// Characters of a request as a provider receives it: tool definitions, then every message's text and tool calls.
function requestChars(messages, tools) {
  let c = tools.reduce((a, t) => a + JSON.stringify(convertToOpenAITool(t)).length, 0)
  for (const m of messages) {
    c += textOf(m.content).length
    if (m.tool_calls && m.tool_calls.length) c += JSON.stringify(m.tool_calls.map((t) => ({ id: t.id, name: t.name, args: t.args }))).length
  }
  return c
}
// A stand-in tokenizer: a CJK character is about one token, anything else four characters.
const CJK = /[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]/g
const realTokens = (text) => {
  const cjk = (text.match(CJK) || []).length
  return cjk + (text.length - cjk) / 4
}

/**
 * A model that reports usage: `tokens(messages, tools)` input tokens, in the
 * shape of `style` ('anthropic' | 'openai' | 'none'); `cacheRead(input, n)` the tokens read.
 */
class UsageModel extends ScriptedChatModel {
  constructor(script, log, opts = {}) {
    super(script, log, opts.llmType || 'scripted')
    this.opts = opts
  }
  bindTools(tools, kwargs) {
    const bound = new UsageModel(this.script, this.log, this.opts)
    bound.boundTools = tools
    bound.bindKwargs = kwargs || {}
    return bound
  }
  async _generate(messages, options) {
    const out = await super._generate(messages, options)
    const { style = 'anthropic', tokens, cacheRead = () => 0, model = 'claude-test' } = this.opts
    const m = out.generations[0].message
    // Built with its fields, as a provider's integration builds it (a checkpoint keeps the constructor's fields).
    const fields = { content: m.content, tool_calls: m.tool_calls, response_metadata: { ...m.response_metadata, model_name: model } }
    if (style !== 'none') {
      const input = Math.round(tokens(messages, this.boundTools))
      const read = Math.min(input, Math.round(cacheRead(input, this.log.calls.length - 1)))
      const details = style === 'anthropic' ? { cache_read: read, cache_creation: input - read } : { cache_read: read }
      fields.usage_metadata = { input_tokens: input, output_tokens: 20, total_tokens: input + 20, input_token_details: details }
    }
    const message = new AIMessage(fields)
    out.generations[0] = { ...out.generations[0], message }
    return out
  }
}

const scaled = (f) => (messages, tools) => (f * requestChars(messages, tools)) / 4
// A cache that works: everything but the newest fifth read from it after the first call.
const reads = (input, n) => (n === 0 ? 0 : input * 0.8)
// Four pages, one per call, then an answer.
const script = (messages, k) => (k < 4 ? calls([`p${k}`, 'get_page', { n: k }]) : new AIMessage('done'))

async function run(opts, mwOptions = {}, body = page, id = 'usage') {
  const events = []
  const warnings = []
  const log = { calls: [] }
  const middleware = toolMemoryMiddleware({ ledger: new Ledger(), logger: { warn: (m) => warnings.push(m) }, onEvent: (e) => events.push(e), ...mwOptions })
  const agent = createAgent({ model: new UsageModel(script, log, opts), tools: [pageTool(body)], systemPrompt: SYSTEM, middleware: [middleware] })
  const state = await agent.invoke(user('read the pages'), thread(id))
  return { events, usage: events.filter((e) => e.type === 'usage'), warnings, log, state }
}

describe('the usage event', () => {
  test('one per model call, with the report as it came and the estimate both ways', async () => {
    const { usage, log, state } = await run({ style: 'anthropic', tokens: scaled(1.2), cacheRead: (input, n) => (n === 0 ? 0 : input * 0.8) })
    expect(usage.length).toBe(log.calls.length)
    expect(usage.map((e) => e.call)).toEqual([0, 1, 2, 3, 4])
    const answers = state.messages.filter((m) => m.type === 'ai')
    usage.forEach((e, i) => {
      const u = answers[i].usage_metadata
      expect(e).toMatchObject({ type: 'usage', threadId: 'usage', namespace: 'usage', model: 'claude-test' })
      expect(e.reported).toEqual({ inputTokens: u.input_tokens, cacheReadTokens: u.input_token_details.cache_read, cacheWriteTokens: u.input_token_details.cache_creation, outputTokens: 20 })
      expect(e.estimate.none.inputTokens).toBeGreaterThan(0)
      expect(e.estimate.ours.cost).toBeGreaterThan(0)
    })
    // Pages are compacted once read: the last call is smaller and cheaper with compaction than without.
    const last = usage[usage.length - 1].estimate
    expect(last.ours.inputTokens).toBeLessThan(last.none.inputTokens / 2)
    expect(last.ours.cost).toBeLessThan(last.none.cost)
  })

  test("the estimate is the bench's ruler on the requests the model received, both ways", async () => {
    const { price, serializeTools, serializeMessage, hasCacheMark, INPUT_USD_PER_MTOK } = require('../benchmark/context/pricing.js')
    const { usage, log } = await run({ style: 'none' }, { cacheModel: 'breakpoint' })
    const asSent = (calls) => calls.map((c) => ({ tools: serializeTools(c.tools), messages: c.messages.map(serializeMessage), marked: c.messages.map(hasCacheMark) }))
    const bench = price(asSent(log.calls), 'breakpoint').calls
    expect(usage).toHaveLength(bench.length)
    usage.forEach((e, k) => {
      expect(e.estimate.ours.cost * (INPUT_USD_PER_MTOK / 1e6)).toBeCloseTo(bench[k].cost, 12)
      expect(e.estimate.ours.inputTokens).toBe(bench[k].tokens)
    })
    // Without compaction: the same conversation through an agent with no middleware.
    const plainLog = { calls: [] }
    const agent = createAgent({ model: new UsageModel(script, plainLog, { style: 'none' }), tools: [pageTool()], systemPrompt: SYSTEM })
    await agent.invoke(user('read the pages'), thread('none'))
    const none = price(asSent(plainLog.calls), 'breakpoint').calls
    usage.forEach((e, k) => expect(e.estimate.none.cost * (INPUT_USD_PER_MTOK / 1e6)).toBeCloseTo(none[k].cost, 12))
  })

  test("OpenAI's shape (cache reads only) reads the same way", async () => {
    const { usage } = await run({ style: 'openai', tokens: scaled(1), cacheRead: (input) => input / 2, model: 'gpt-test' })
    expect(usage[1].reported.cacheWriteTokens).toBeNull()
    expect(usage[1].reported.cacheReadTokens).toBe(Math.round(usage[1].reported.inputTokens / 2))
    expect(usage[1].model).toBe('gpt-test')
  })

  test('no usage reported: estimates only, no warning', async () => {
    const { usage, warnings } = await run({ style: 'none' })
    expect(usage.length).toBe(5)
    for (const e of usage) {
      expect(e.reported).toBeNull()
      expect(e.factor).toBe(1)
      expect(e.estimate.ours.inputTokens).toBeGreaterThan(0)
    }
    expect(warnings).toEqual([])
  })

  test('an onEvent that throws never breaks the agent', async () => {
    const warnings = []
    const log = { calls: [] }
    const middleware = toolMemoryMiddleware({
      ledger: new Ledger(),
      logger: { warn: (m) => warnings.push(m) },
      onEvent: () => {
        throw new Error('metrics down')
      },
    })
    const agent = createAgent({ model: new UsageModel(script, log, { tokens: scaled(1) }), tools: [pageTool()], systemPrompt: SYSTEM, middleware: [middleware] })
    const state = await agent.invoke(user('go'), thread('throwing'))
    expect(textOf(state.messages[state.messages.length - 1].content)).toBe('done')
    expect(log.calls.length).toBe(5)
    expect(warnings.filter((w) => w.includes('onEvent threw (metrics down)')).length).toBe(1)
  })
})

describe('the usage event with toolMemoryPreModelHook', () => {
  test("each call is reported once, when the next call starts; the totals agree (the hook's options only)", async () => {
    const events = []
    const hook = toolMemoryPreModelHook({ onEvent: (e) => events.push(e), logger: { warn() {} } })
    const log = { calls: [] }
    const llm = new UsageModel(script, log, { style: 'openai', tokens: scaled(1.1), cacheRead: reads })
    const agent = createReactAgent({ llm, tools: [pageTool(), hook.tool], preModelHook: hook })
    const state = await agent.invoke(user('read the pages'), thread('hooked'))
    const usage = events.filter((e) => e.type === 'usage')
    expect(usage.map((e) => e.call)).toEqual([0, 1, 2, 3])
    expect(usage.every((e) => e.threadId === 'hooked' && e.reported !== null)).toBe(true)
    const t = usageTotals(state.messages)
    expect(t.modelCalls).toBe(5)
    // Up to the last answer (the call the hook reports at the next run's first call), the totals are the events added up.
    const before = usageTotals(state.messages.slice(0, state.messages.length - 1))
    expect(before.modelCalls).toBe(4)
    for (const w of ['none', 'ours']) expect(before.estimate[w].cost).toBeCloseTo(usage.reduce((a, e) => a + e.estimate[w].cost, 0), 6)
    expect(t.estimate.ours.cost).toBeGreaterThan(before.estimate.ours.cost)
  })
})

describe('calibration', () => {
  const lastError = (usage) => {
    const e = usage[3] // the fourth call: three reports learned
    return Math.abs(e.estimate.ours.inputTokens - e.reported.inputTokens) / e.reported.inputTokens
  }

  test.each([
    [1.3, 'anthropic'],
    [0.8, 'openai'],
  ])('at %s × characters / 4 (%s usage), the estimate is within 5 %% of the report after three calls', async (f, style) => {
    const { usage, warnings } = await run({ style, tokens: scaled(f), cacheRead: reads })
    expect(lastError(usage)).toBeLessThan(0.05)
    expect(usage[3].factor).toBeCloseTo(f, 1)
    // Uncalibrated, the first call was off by the whole factor.
    expect(Math.abs(usage[0].estimate.ours.inputTokens - usage[0].reported.inputTokens) / usage[0].reported.inputTokens).toBeGreaterThan(0.15)
    expect(warnings).toEqual([])
  })

  test('thresholds compare calibrated sizes: at 1.3 ×, a 70,000-character result is over evictChars (80,000)', async () => {
    const big = (n) => (n === 2 ? 'row of the export with some words in it\n'.repeat(1750) : page(n)) // 70,000 characters
    const seen = async (opts) => {
      const { log } = await run(opts, {}, big)
      // The call right after the export arrived: its result in full, or a stub.
      return textOf(log.calls[3].messages.find((m) => m.type === 'tool' && m.tool_call_id === 'p2').content).length
    }
    expect(await seen({ style: 'none' })).toBe(70000)
    expect(await seen({ tokens: scaled(1.3), cacheRead: reads })).toBeLessThan(5000)
  })

  test('with CJK-heavy results (CLDR Japanese), the same', async () => {
    const { usage } = await run({ cacheRead: reads, tokens: (messages, tools) => realTokens(JSON.stringify(tools.map((t) => convertToOpenAITool(t)))) + messages.reduce((a, m) => a + realTokens(textOf(m.content)) + (m.tool_calls && m.tool_calls.length ? realTokens(JSON.stringify(m.tool_calls.map((t) => ({ id: t.id, name: t.name, args: t.args })))) : 0), 0) }, {}, cjkPage)
    expect(usage[3].factor).toBeGreaterThan(1.2)
    expect(lastError(usage)).toBeLessThan(0.05)
  })

  test('countTokens replaces characters / 4 (a TypeError when not a function)', async () => {
    expect(() => toolMemoryMiddleware({ countTokens: 4 })).toThrow(/^toolMemoryMiddleware\(options\): countTokens must be a function/)
    const { usage } = await run({ style: 'none' }, { countTokens: realTokens }, cjkPage)
    const plain = await run({ style: 'none' }, {}, cjkPage)
    // CJK results weigh more than their characters / 4.
    expect(usage[1].estimate.none.inputTokens).toBeGreaterThan(1.3 * plain.usage[1].estimate.none.inputTokens)
  })

  test('a nonsense report is ignored, with one warning', async () => {
    const { usage, warnings } = await run({ tokens: scaled(800), cacheRead: reads })
    const plain = await run({ style: 'none' })
    expect(usage.map((e) => e.factor)).toEqual([1, 1, 1, 1, 1])
    expect(usage.map((e) => e.estimate)).toEqual(plain.usage.map((e) => e.estimate))
    expect(warnings.length).toBe(1)
    expect(warnings[0]).toMatch(/reported 800\.00 × the input tokens estimated .* ignored/)
  })
})

describe('the cache check', () => {
  test('no cache reads where a hit was due: warned once, naming the cause, and an event per call', async () => {
    const { events, warnings } = await run({ llmType: 'anthropic', tokens: scaled(1) }, { cacheMarks: false })
    const misses = events.filter((e) => e.type === 'cacheMiss')
    expect(misses.length).toBeGreaterThan(1)
    expect(misses[0]).toMatchObject({ cause: 'noCacheMarks', threadId: 'usage' })
    expect(misses[0].expectedCacheReadTokens).toBeGreaterThan(1024)
    expect(warnings.length).toBe(1)
    expect(warnings[0]).toMatch(/read nothing from its prompt cache .* no cache_control mark/)
  })

  test('cache reads reported: no warning', async () => {
    const { events, warnings } = await run({ llmType: 'anthropic', tokens: scaled(1), cacheRead: (input, n) => (n === 0 ? 0 : input * 0.7) })
    expect(events.filter((e) => e.type === 'cacheMiss')).toEqual([])
    expect(warnings).toEqual([])
  })
})

describe('usageTotals', () => {
  const options = { tools: [pageTool()], systemPrompt: SYSTEM }
  const agentWith = (saver, events, opts, turn) =>
    createAgent({
      model: new UsageModel((messages, k) => (k < 3 ? calls([`${turn}${k}`, 'get_page', { n: k }]) : new AIMessage('done')), { calls: [] }, opts),
      tools: [pageTool()],
      systemPrompt: SYSTEM,
      checkpointer: saver,
      middleware: [toolMemoryMiddleware({ ledger: new Ledger(), onEvent: (e) => events.push(e) })],
    })

  test('a thread adds up from its messages, the same after a checkpoint reload', async () => {
    const saver = new MemorySaver()
    const events = []
    const opts = { tokens: scaled(1.25), cacheRead: (input, n) => (n === 0 ? 0 : input * 0.6) }
    await agentWith(saver, events, opts, 'a').invoke(user('first'), thread('t1'))
    const second = agentWith(saver, events, opts, 'b')
    const state = await second.invoke(user('second'), thread('t1'))
    const totals = usageTotals(state.messages, options)
    const usage = events.filter((e) => e.type === 'usage')
    expect(totals.modelCalls).toBe(usage.length)
    expect(totals.compactions).toBeGreaterThan(0)
    expect(totals.recalls).toBe(0)
    expect(totals.reported.calls).toBe(usage.length)
    expect(totals.reported.inputTokens).toBe(usage.reduce((a, e) => a + e.reported.inputTokens, 0))
    expect(totals.reported.cacheReadTokens).toBe(usage.reduce((a, e) => a + e.reported.cacheReadTokens, 0))
    // The totals are the events added up: the same figures the budget priced.
    const sum = (k, w) => usage.reduce((a, e) => a + e.estimate[w][k], 0)
    for (const w of ['none', 'ours']) for (const k of ['inputTokens', 'cost']) expect(totals.estimate[w][k]).toBeCloseTo(sum(k, w), 6)
    expect(totals.saving.cost).toBeCloseTo(totals.estimate.none.cost - totals.estimate.ours.cost, 9)
    expect(totals.saving.ratio).toBeGreaterThan(0)
    // A restart: the state comes back from the checkpointer; the totals do not move.
    const fresh = (await agentWith(saver, [], opts, 'c').getState(thread('t1'))).values.messages
    expect(fresh.length).toBe(state.messages.length)
    expect(fresh[0]).not.toBe(state.messages[0])
    expect(usageTotals(fresh, options)).toEqual(totals)
  })

  test('options fail closed', () => {
    expect(() => usageTotals('x')).toThrow(/^usageTotals\(messages, options\): messages must be an array/)
    expect(() => usageTotals([], { tool: [] })).toThrow(/^usageTotals\(messages, options\): unknown option "tool"; did you mean "tools"\?/)
    expect(() => usageTotals([], { countTokens: 'x' })).toThrow(/countTokens must be a function/)
    expect(usageTotals([])).toMatchObject({ modelCalls: 0, compactions: 0, recalls: 0, saving: { cost: 0, ratio: 0 } })
  })
})

describe('core/usage.js: the plain-data API the adapters call', () => {
  const core = require('../core/index.js')

  test.each([
    ['LangChain (Anthropic)', { input_tokens: 1200, output_tokens: 40, total_tokens: 1240, input_token_details: { cache_read: 1000, cache_creation: 150 } }, { inputTokens: 1200, cacheReadTokens: 1000, cacheWriteTokens: 150, outputTokens: 40 }],
    ['LangChain (OpenAI)', { input_tokens: 1200, output_tokens: 40, total_tokens: 1240, input_token_details: { cache_read: 1024 } }, { inputTokens: 1200, cacheReadTokens: 1024, cacheWriteTokens: null, outputTokens: 40 }],
    ['AI SDK 5', { inputTokens: 900, outputTokens: 12, totalTokens: 912, cachedInputTokens: 512 }, { inputTokens: 900, cacheReadTokens: 512, cacheWriteTokens: null, outputTokens: 12 }],
    ['AI SDK 6', { inputTokens: 900, outputTokens: 12, inputTokenDetails: { cacheReadTokens: 512, cacheWriteTokens: 100, noCacheTokens: 288 } }, { inputTokens: 900, cacheReadTokens: 512, cacheWriteTokens: 100, outputTokens: 12 }],
    ['Agents SDK', { requests: 1, inputTokens: 700, outputTokens: 9, totalTokens: 709, inputTokensDetails: [{ cached_tokens: 640 }] }, { inputTokens: 700, cacheReadTokens: 640, cacheWriteTokens: null, outputTokens: 9 }],
    ['Agents SDK, two requests', { requests: 2, inputTokens: 1500, outputTokens: 20, inputTokensDetails: [{ cached_tokens: 640 }, { cached_tokens: 700 }] }, { inputTokens: 1500, cacheReadTokens: 1340, cacheWriteTokens: null, outputTokens: 20 }],
    ['no input count', { output_tokens: 3 }, null],
    ['nothing', undefined, null],
  ])('readUsage reads %s', (_, record, want) => {
    expect(core.readUsage(record)).toEqual(want)
  })

  test('a record whose getters throw reads as nothing', () => {
    expect(core.readUsage(new Proxy({}, { get() { throw new Error('boom') } }))).toBeNull()
  })

  test('plan prices the call both ways; totals add the answered calls up and learn the factor', () => {
    const o = core.resolveOptions({ cacheModel: 'prefix' })
    const env = { toolChars: 800, systemChars: 2000, recallToolChars: 600 }
    const big = 'row of the listing with some words\n'.repeat(300)
    const messages = [{ role: 'user', text: 'go', size: 2, markable: true }]
    const events = []
    for (let k = 0; k < 4; k++) {
      const { call } = core.plan(messages, o, env)
      const reported = Math.round((1.3 * call.ours.chars) / 4)
      events.push(core.estimateOf(call))
      const calls = [{ id: `c${k}`, name: 'list', args: {} }]
      messages.push({ role: 'assistant', text: '', size: core.callsSize(calls), markable: false, calls, usage: { inputTokens: reported, cacheReadTokens: null, cacheWriteTokens: null, outputTokens: 5 }, model: 'm' })
      messages.push({ role: 'tool', text: big, size: big.length, markable: true, callId: `c${k}`, name: 'list', chars: big.length, textOnly: true, ours: false })
    }
    const t = core.totals(messages, o, env)
    expect(t.modelCalls).toBe(4)
    expect(t.reported.calls).toBe(4)
    expect(t.estimate.ours.cost).toBeCloseTo(events.reduce((a, e) => a + e.ours.cost, 0), 6)
    expect(t.estimate.none.inputTokens).toBeCloseTo(events.reduce((a, e) => a + e.none.inputTokens, 0), 6)
    // The call after three reports uses the learned factor.
    expect(core.plan(messages, o, env).call.factor).toBeCloseTo(1.3, 2)
  })
})
