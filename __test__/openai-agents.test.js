// @symfonic/core/openai-agents with the real Agents SDK (@openai/agents) and
// its test model (ScriptedModel, modelResponder), on real payloads
// (fixtures/payloads, sources in its README). Through the package entry, as
// users import it.

const fs = require('node:fs')
const path = require('node:path')
const { execFileSync } = require('node:child_process')
const { Agent, run, tool, MemorySession, Usage } = require('@openai/agents')
const { ScriptedModel, modelResponder, functionCall, assistantMessage } = require('@openai/agents/testing')
const { Ledger, recall } = require('@symfonic/core')
const { toolMemory } = require('@symfonic/core/openai-agents')

const ROOT = path.join(__dirname, '..')
const payload = (f) => fs.readFileSync(path.join(ROOT, 'fixtures/payloads', f), 'utf8')
const PAGE = payload('rustdoc-what-is-rustdoc.html') // 27 k: compacted once read
const LANGS = payload('cldr-ja-languages.json') // 25 k
const ISSUES = payload('octokit-paginate-issues.json') // 144 k: over evictChars, a stub at first sight
const HEADER = '[symfonic.tool_memory v2]'
const EAGER = { horizonCalls: Infinity, maxExtraCost: Infinity }

// One tool per payload; `fail` throws.
const PAYLOADS = { read_page: PAGE, read_langs: LANGS, list_issues: ISSUES }
const noArgs = { type: 'object', properties: {}, required: [], additionalProperties: false }
const appTools = () => [
  ...Object.entries(PAYLOADS).map(([name, text]) => tool({ name, description: name, parameters: noArgs, execute: async () => text })),
  tool({ name: 'fail', description: 'fails', parameters: noArgs, execute: async () => { throw new Error('disk on fire') } }),
]

// A scripted model: each step sees the request's input (recorded in `inputs`) and answers output items.
function model(steps, inputs) {
  return new ScriptedModel(steps.map((step) => modelResponder(({ request }) => {
    inputs.push(request.input)
    return step(request.input)
  })))
}
const call = (name, args, callId) => () => [functionCall(name, args, { callId })]
const say = (text) => () => [assistantMessage(text)]
const resultOf = (input, callId) => input.find((i) => i.type === 'function_call_result' && i.callId === callId)
const textOf = (item) => {
  const o = item.output
  if (typeof o === 'string') return o
  if (Array.isArray(o)) return o.map((p) => p.text ?? '').join('')
  return o && typeof o.text === 'string' ? o.text : JSON.stringify(o)
}
const memIdIn = (text) => /mem=(trm_[0-9a-f]+)/.exec(text)?.[1]

async function runWith(memory, steps, input = 'go', options = {}) {
  const inputs = []
  const agent = new Agent({ name: 'shop', instructions: 'Answer from the tools.', model: model(steps, inputs), tools: [...appTools(), ...memory.tools] })
  const result = await run(agent, input, { callModelInputFilter: memory.callModelInputFilter, maxTurns: 30, ...options })
  return { result, inputs, agent }
}

describe('toolMemory(): the filter and the recall tool in a run', () => {
  test('a result the model has read is a stub in later calls; the run keeps the original', async () => {
    const memory = toolMemory(EAGER)
    const { result, inputs } = await runWith(memory, [call('read_page', {}, 'c1'), call('read_langs', {}, 'c2'), say('read both'), say('again')])
    expect(textOf(resultOf(inputs[1], 'c1'))).toBe(PAGE) // fresh: in full
    const stub = textOf(resultOf(inputs[2], 'c1'))
    expect(stub.startsWith(HEADER)).toBe(true)
    expect(stub.length).toBeLessThan(PAGE.length / 8)
    expect(textOf(resultOf(inputs[2], 'c2'))).toBe(LANGS) // read for the first time
    const kept = result.history.find((i) => i.type === 'function_call_result' && i.callId === 'c1')
    expect(textOf(kept)).toBe(PAGE)
    // The ledger holds the original under the stub's id.
    expect(await recall(memory.ledger, memIdIn(stub), { format: 'full' })).toBe(PAGE)
  })

  test('recall_tool_result answers the slice asked for', async () => {
    const memory = toolMemory(EAGER)
    let memId
    const { inputs } = await runWith(memory, [
      call('read_page', {}, 'c1'),
      call('read_langs', {}, 'c2'),
      (input) => {
        memId = memIdIn(textOf(resultOf(input, 'c1')))
        return [functionCall('recall_tool_result', { mem_id: memId, lines: '3-5' }, { callId: 'r1' })]
      },
      say('done'),
    ])
    const answer = textOf(resultOf(inputs[3], 'r1'))
    expect(answer).toBe(await recall(memory.ledger, memId, { lines: '3-5' }))
    for (const line of PAGE.split('\n').slice(2, 5)) if (line.trim()) expect(answer).toContain(line.trim().slice(0, 40))
  })

  test('stubs are byte-identical at every call, and the same from a fresh filter over the same content', async () => {
    const memory = toolMemory(EAGER)
    const { inputs } = await runWith(memory, [call('read_page', {}, 'c1'), call('read_langs', {}, 'c2'), call('read_langs', {}, 'c3'), call('read_langs', {}, 'c4'), say('ok')])
    const stubs = inputs.slice(2).map((input) => textOf(resultOf(input, 'c1')))
    expect(new Set(stubs).size).toBe(1)
    const again = await runWith(toolMemory({ ...EAGER, ledger: new Ledger() }), [call('read_page', {}, 'c1'), call('read_langs', {}, 'c2'), say('ok')])
    expect(textOf(resultOf(again.inputs[2], 'c1'))).toBe(stubs[0])
  })

  test('outputs as input_text parts are compacted as their joined text; one with an image never is', async () => {
    const memory = toolMemory(EAGER)
    const half = Math.floor(PAGE.length / 2)
    const parts = tool({ name: 'parts', description: 'parts', parameters: noArgs, execute: async () => [{ type: 'text', text: PAGE.slice(0, half) }, { type: 'text', text: PAGE.slice(half) }] })
    const image = tool({ name: 'image', description: 'image', parameters: noArgs, execute: async () => [{ type: 'text', text: LANGS }, { type: 'image', image: 'data:image/png;base64,iVBORw0KGgo=' }] })
    const inputs = []
    const steps = [() => [functionCall('parts', {}, { callId: 'p1' }), functionCall('image', {}, { callId: 'i1' })], call('read_langs', {}, 'c2'), say('ok')]
    const agent = new Agent({ name: 'shop', model: model(steps, inputs), tools: [parts, image, ...appTools(), ...memory.tools] })
    await run(agent, 'go', { callModelInputFilter: memory.callModelInputFilter })
    expect(Array.isArray(resultOf(inputs[1], 'p1').output)).toBe(true) // as the SDK sends it: input_text parts
    const stub = textOf(resultOf(inputs[2], 'p1'))
    expect(stub.startsWith(HEADER)).toBe(true)
    expect(await recall(memory.ledger, memIdIn(stub), { format: 'full' })).toBe(PAGE)
    expect(resultOf(inputs[2], 'i1').output).toEqual(resultOf(inputs[1], 'i1').output)
  })

  test('a result over evictChars is a stub at first sight', async () => {
    const memory = toolMemory()
    const { inputs } = await runWith(memory, [call('list_issues', {}, 'c1'), say('ok')])
    const stub = textOf(resultOf(inputs[1], 'c1'))
    expect(stub.startsWith(HEADER)).toBe(true)
    expect(stub).toContain('size=144')
    expect(await memory.ledger.fetch(memIdIn(stub), { format: 'full' })).toBe(ISSUES)
  })

  test('a throwing tool: its error result passes through, the others are still compacted', async () => {
    const memory = toolMemory(EAGER)
    const { inputs } = await runWith(memory, [call('fail', {}, 'c0'), call('read_page', {}, 'c1'), call('read_langs', {}, 'c2'), say('ok')])
    const error = textOf(resultOf(inputs[3], 'c0'))
    expect(error).not.toContain(HEADER)
    expect(error).toBe(textOf(resultOf(inputs[1], 'c0')))
    expect(textOf(resultOf(inputs[3], 'c1')).startsWith(HEADER)).toBe(true)
  })

  test('an unknown mem_id, and arguments no schema allows, get structured answers', async () => {
    const memory = toolMemory()
    const { inputs, result } = await runWith(memory, [
      () => [
        functionCall('recall_tool_result', { mem_id: 'trm_000000000000' }, { callId: 'r1' }),
        functionCall('recall_tool_result', { mem_id: 'trm_000000000000', start_line: 3 }, { callId: 'r2' }),
        functionCall('recall_tool_result', { mem_id: 'trm_000000000000', offset: 'twelve' }, { callId: 'r3' }),
        functionCall('recall_tool_result', { mem_id: 42 }, { callId: 'r4' }),
      ],
      say('ok'),
    ])
    expect(result.finalOutput).toBe('ok')
    const answers = ['r1', 'r2', 'r3', 'r4'].map((id) => textOf(resultOf(inputs[1], id)))
    expect(answers[0]).toMatch(/^\[tool_memory not found/)
    expect(answers[1]).toMatch(/^\[recall: unknown argument 'start_line' \(did you mean lines\?\)/)
    expect(answers[2]).toMatch(/^\[tool_memory error: offset must be an integer/)
    for (const a of answers) expect(a.startsWith('[')).toBe(true)
  })

  test('the tool as the SDK invokes it never throws, whatever the arguments', async () => {
    const [recallTool] = toolMemory().tools
    // The LangChain tool's definition: untyped arguments, mem_id required, not strict.
    expect(recallTool.parameters.required).toEqual(['mem_id'])
    expect(Object.keys(recallTool.parameters.properties)).toEqual(['mem_id', 'json_path', 'pattern', 'query', 'lines', 'offset', 'format'])
    expect(recallTool.strict).toBe(false)
    for (const input of ['{}', '{"mem_id":null}', '{"mem_id":"trm_0","json_path":7,"lines":[1,2],"format":"bogus"}', '[1,2]', '"x"', 'null']) {
      const answer = await recallTool.invoke({ context: undefined }, input)
      expect(typeof answer).toBe('string')
      expect(answer.startsWith('[')).toBe(true)
    }
  })

  test('a ledger that lost an entry is refilled from the filter\'s record cache', async () => {
    const ledger = new Ledger()
    const memory = toolMemory({ ...EAGER, ledger })
    let memId
    const { inputs } = await runWith(memory, [
      call('read_page', {}, 'c1'),
      call('read_langs', {}, 'c2'),
      async (input) => {
        memId = memIdIn(textOf(resultOf(input, 'c1')))
        await ledger.clear() // an eviction, or a store emptied
        return [functionCall('recall_tool_result', { mem_id: memId, format: 'full' }, { callId: 'r1' })]
      },
      say('ok'),
    ])
    expect(textOf(resultOf(inputs[3], 'r1'))).toBe(PAGE)
  })

  test("cacheModel 'breakpoint': at most two marks, Anthropic's cacheControl in an item's providerData, on results and on the model's own answers", async () => {
    const memory = toolMemory({ ...EAGER, cacheModel: 'breakpoint' })
    // As aisdk() answers: its items carry providerData naming the model, which a mark must keep.
    const providerData = { model: 'anthropic.messages:claude-bench' }
    const answer = (name, callId) => () => [assistantMessage(`reading ${name}`), functionCall(name, {}, { callId, providerData })]
    const { inputs, result } = await runWith(memory, [answer('read_page', 'c1'), answer('read_langs', 'c2'), call('read_langs', {}, 'c3'), say('ok')])
    const isMarked = (i) => !!(i.providerData && i.providerData.anthropic && i.providerData.anthropic.cacheControl)
    const marks = (input) => input.filter(isMarked)
    expect(marks(inputs[3]).length).toBeGreaterThan(0)
    for (const input of inputs) expect(marks(input).length).toBeLessThanOrEqual(2)
    for (const i of inputs.flatMap(marks)) expect(i.providerData.anthropic.cacheControl).toEqual({ type: 'ephemeral' })
    // The model's answers are marked on their last item (a function_call here), as a tool result is.
    const kinds = new Set(inputs.flatMap(marks).map((i) => i.type ?? 'message'))
    expect(kinds.has('function_call')).toBe(true)
    for (const i of inputs.flatMap(marks).filter((i) => i.type === 'function_call')) expect(i.providerData.model).toBe(providerData.model)
    // The SDK's promptCacheBreakpoint (input text only, dropped by the AI SDK bridge) is not used.
    expect(JSON.stringify(inputs)).not.toMatch(/promptCacheBreakpoint/)
    // The run's own items are never marked.
    expect(result.history.some(isMarked)).toBe(false)
    // Under 'prefix', nothing is marked.
    const prefix = await runWith(toolMemory({ ...EAGER, cacheModel: 'prefix' }), [answer('read_page', 'c1'), answer('read_langs', 'c2'), say('ok')])
    expect(prefix.inputs.flatMap(marks)).toEqual([])
    // cacheMarks: false (a Claude reached through an OpenAI provider, where the field would go out as is): none either.
    const off = await runWith(toolMemory({ ...EAGER, cacheModel: 'breakpoint', cacheMarks: false }), [answer('read_page', 'c1'), answer('read_langs', 'c2'), say('ok')])
    expect(off.inputs.flatMap(marks)).toEqual([])
    expect(textOf(resultOf(off.inputs[2], 'c1')).startsWith(HEADER)).toBe(true)
  })

  test('namespace: a function of the run context', async () => {
    const memory = toolMemory({ ...EAGER, namespace: (context) => context.tenant })
    const { inputs } = await runWith(memory, [call('read_page', {}, 'c1'), call('read_langs', {}, 'c2'), say('ok')], 'go', { context: { tenant: 'acme' } })
    const memId = memIdIn(textOf(resultOf(inputs[2], 'c1')))
    expect(await recall(memory.ledger, memId, { format: 'full', namespace: 'acme' })).toBe(PAGE)
    expect(await recall(memory.ledger, memId, { format: 'full' })).toMatch(/^\[tool_memory not found/)
  })
})

describe('limits', () => {
  test('with a session, the session keeps the originals of the results a run produced', async () => {
    const memory = toolMemory(EAGER)
    const session = new MemorySession()
    await runWith(memory, [call('read_page', {}, 'c1'), call('read_langs', {}, 'c2'), say('read both')], 'go', { session })
    const { inputs } = await runWith(memory, [say('from memory')], 'and now?', { session })
    // The next run's input comes from the session: the filter compacts it again.
    expect(textOf(resultOf(inputs[0], 'c1')).startsWith(HEADER)).toBe(true)
    const stored = (await session.getItems()).find((i) => i.type === 'function_call_result' && i.callId === 'c1')
    expect(textOf(stored)).toBe(PAGE)
  })

  test('with a session, items given as the turn input are stored as the model saw them (a stub); recall still reaches the original', async () => {
    const memory = toolMemory()
    const first = await runWith(memory, [call('list_issues', {}, 'c1'), say('ok')])
    const session = new MemorySession()
    const input = [...first.result.history, { type: 'message', role: 'user', content: 'more?' }]
    await runWith(memory, [say('no')], input, { session, sessionInputCallback: (history, added) => [...history, ...added] })
    const stored = (await session.getItems()).find((i) => i.type === 'function_call_result' && i.callId === 'c1')
    const text = textOf(stored)
    expect(text.startsWith(HEADER)).toBe(true) // the session lost the payload
    expect(await memory.ledger.fetch(memIdIn(text), { format: 'full' })).toBe(ISSUES) // the ledger has it
  })

  test('with previousResponseId, older items live on the server: the filter sees only what is sent anew', async () => {
    const memory = toolMemory(EAGER)
    const first = await runWith(memory, [call('read_page', {}, 'c1'), say('read it')])
    const { inputs } = await runWith(memory, [call('read_langs', {}, 'c2'), say('ok')], 'next', { previousResponseId: first.result.lastResponseId })
    // The first call sends the new turn only; the page result is out of the filter's reach.
    expect(inputs[0].map((i) => i.type ?? 'message')).toEqual(['message'])
    expect(inputs.flat().some((i) => i.callId === 'c1')).toBe(false)
    // A result sent once is never sent again, so it is never compacted after it was read.
    expect(inputs[1].filter((i) => i.type === 'function_call_result').map(textOf)).toEqual([LANGS])
  })
})

describe('options', () => {
  test('programmer mistakes are TypeErrors naming toolMemory(options)', () => {
    expect(() => toolMemory({ sizechars: 10 })).toThrow(/toolMemory\(options\): unknown option "sizechars"; did you mean "sizeChars"\?/)
    expect(() => toolMemory({ ledger: new Ledger(), store: 'sqlite::memory:' })).toThrow(/toolMemory\(options\): pass ledger or store/)
    expect(() => toolMemory({ namespace: 5 })).toThrow(/toolMemory\(options\): namespace must be/)
    expect(() => toolMemory({ recallMaxChars: 0 })).toThrow(/toolMemory\(options\): recallMaxChars/)
    expect(() => toolMemory({ cacheModel: 'lru' })).toThrow(/toolMemory\(options\): cacheModel/)
    expect(() => toolMemory({ ledger: {} })).toThrow(/toolMemory\(options\): ledger must be/)
    expect(() => toolMemory([])).toThrow(TypeError)
  })

  test('store: a ledger over that store', async () => {
    const memory = toolMemory({ store: 'sqlite::memory:' })
    expect(memory.ledger).toBeInstanceOf(Ledger)
    const h = await memory.ledger.record({ toolCallId: 'c', toolName: 't', content: 'x'.repeat(100) })
    expect(await recall(memory.ledger, h.memId, { format: 'full' })).toBe('x'.repeat(100))
  })
})

describe('loading', () => {
  const loaded = (code) => JSON.parse(execFileSync(process.execPath, ['-e', `${code}; console.log(JSON.stringify(Object.keys(require.cache)))`], { cwd: ROOT, encoding: 'utf8' }))
  test('@symfonic/core and /langchain do not load the Agents SDK; /openai-agents loads no LangChain', () => {
    for (const entry of ['@symfonic/core', '@symfonic/core/langchain']) {
      expect(loaded(`require('${entry}')`).filter((f) => f.includes('@openai'))).toEqual([])
    }
    const files = loaded("require('@symfonic/core/openai-agents').toolMemory()")
    expect(files.some((f) => f.includes('@openai/agents'))).toBe(true)
    expect(files.filter((f) => /node_modules[\\/](langchain|@langchain)[\\/]/.test(f))).toEqual([])
  })
})

describe('toolMemory(): a usage event per model call', () => {
  // A response reporting `input` tokens, `cached` of them read from the cache.
  const usage = (input, cached) => new Usage({ requests: 1, inputTokens: input, outputTokens: 7, totalTokens: input + 7, inputTokensDetails: [{ cached_tokens: cached }] })
  const reporting = (step, u) => (input) => ({ output: step(input), usage: u })
  const script = [call('read_page', {}, 'c1'), call('read_langs', {}, 'c2'), say('done')]

  test('each call, reported after its response, with the usage the model reported', async () => {
    const events = []
    const reports = [usage(400, 0), usage(7600, 200), usage(14000, 7100)]
    const { result } = await runWith(toolMemory({ onEvent: (e) => events.push(e) }), script.map((s, k) => reporting(s, reports[k])))
    expect(result.finalOutput).toBe('done')
    const seen = events.filter((e) => e.type === 'usage')
    expect(seen.map((e) => e.call)).toEqual([0, 1, 2])
    expect(seen.map((e) => e.reported)).toEqual([
      { inputTokens: 400, cacheReadTokens: 0, cacheWriteTokens: null, outputTokens: 7 },
      { inputTokens: 7600, cacheReadTokens: 200, cacheWriteTokens: null, outputTokens: 7 },
      { inputTokens: 14000, cacheReadTokens: 7100, cacheWriteTokens: null, outputTokens: 7 },
    ])
    // Call 1 carries the page read at call 0 (27 k characters: thousands of tokens more).
    expect(seen[1].estimate.ours.inputTokens).toBeGreaterThan(seen[0].estimate.ours.inputTokens + 3000)
    for (const e of seen) expect(e).toMatchObject({ threadId: null, namespace: '' })
    // The first report is learned from (calibration): the next call's factor is reported / estimated.
    expect(seen[0].factor).toBe(1)
  })

  test('a model that reports no usage: reported null, estimates only', async () => {
    const events = []
    await runWith(toolMemory({ onEvent: (e) => events.push(e) }), script)
    const seen = events.filter((e) => e.type === 'usage')
    expect(seen).toHaveLength(3)
    for (const e of seen) {
      expect(e.reported).toBeNull()
      expect(e.estimate.ours.cost).toBeGreaterThan(0)
    }
  })

  test('an onEvent that throws never breaks the run: warned once', async () => {
    const warnings = []
    let thrown = 0
    const memory = toolMemory({ onEvent: () => { thrown++; throw new Error('metrics down') }, logger: { warn: (m) => warnings.push(m) } })
    const { result } = await runWith(memory, script.map((s) => reporting(s, usage(9000, 0))))
    expect(result.finalOutput).toBe('done')
    expect(thrown).toBeGreaterThanOrEqual(3)
    expect(warnings.filter((w) => w.includes('onEvent threw'))).toHaveLength(1)
  })
})
