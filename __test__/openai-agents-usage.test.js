// What compaction saved in the OpenAI Agents SDK adapter (issue 42): the
// calibration factor learned from the usage each response reports, a
// nonsense report ignored with one warning, the totals of a conversation
// from its items and the run's Usage (the same after a JSON round trip),
// and two runs at once keeping their own reports. The real SDK and its test
// model (ScriptedModel), reporting usage as a provider's response does.

const fs = require('node:fs')
const path = require('node:path')
const { Agent, run, tool, Usage } = require('@openai/agents')
const { ScriptedModel, modelResponder, functionCall, assistantMessage } = require('@openai/agents/testing')
const { Ledger } = require('@symfonic/core')
const { toolMemory, usageTotals } = require('@symfonic/core/openai-agents')

const payload = (f) => fs.readFileSync(path.join(__dirname, '..', 'fixtures/payloads', f), 'utf8')
// Real payloads (fixtures/payloads/README.md): a rustdoc page, CLDR's Japanese language names, a CI log.
const PAYLOADS = { read_page: payload('rustdoc-what-is-rustdoc.html'), read_langs: payload('cldr-ja-languages.json'), read_log: payload('ci-failure.log') }
const INSTRUCTIONS = 'Answer from the tools.'
const noArgs = { type: 'object', properties: {}, required: [], additionalProperties: false }
const appTools = () => Object.entries(PAYLOADS).map(([name, text]) => tool({ name, description: name, parameters: noArgs, execute: async () => text }))

// Characters of a request as the model receives it: its tools, instructions, and every item's text and calls.
function requestChars(request) {
  let c = (request.systemInstructions ?? '').length + request.tools.reduce((a, t) => a + JSON.stringify({ type: t.type, name: t.name, description: t.description, parameters: t.parameters, strict: t.strict }).length, 0)
  const items = Array.isArray(request.input) ? request.input : []
  for (const it of items) {
    if (it.type === 'function_call') c += JSON.stringify([{ id: it.callId, name: it.name, args: JSON.parse(it.arguments) }]).length
    const content = it.type === 'function_call_result' ? it.output : it.content
    if (typeof content === 'string') c += content.length
    else if (Array.isArray(content)) for (const p of content) c += (p.text ?? '').length
    else if (content && typeof content.text === 'string') c += content.text.length
  }
  return c
}
const usageOf = (input, cached = 0) => new Usage({ requests: 1, inputTokens: input, outputTokens: 7, totalTokens: input + 7, inputTokensDetails: [{ cached_tokens: cached }] })

// Read the page, the languages, the log, the page again, then answer: five calls, each reporting
// `tokens(request)` input tokens (none when `tokens` is null).
const STEPS = [['read_page', 'c1'], ['read_langs', 'c2'], ['read_log', 'c3'], ['read_page', 'c4']]
function scripted(tokens, log = []) {
  const steps = [...STEPS.map(([name, id]) => () => [functionCall(name, {}, { callId: id })]), () => [assistantMessage('done')]]
  return new ScriptedModel(
    steps.map((step) =>
      modelResponder(({ request }) => {
        log.push(request)
        const output = step()
        return tokens === null ? output : { output, usage: usageOf(Math.round(tokens(request))) }
      }),
    ),
  )
}

async function runOnce(tokens, options = {}) {
  const events = []
  const warnings = []
  const memory = toolMemory({ ledger: new Ledger(), onEvent: (e) => events.push(e), logger: { warn: (m) => warnings.push(m) }, ...options })
  const agent = new Agent({ name: 'reader', instructions: INSTRUCTIONS, model: scripted(tokens), tools: [...appTools(), ...memory.tools] })
  const result = await run(agent, 'read everything', { callModelInputFilter: memory.callModelInputFilter, maxTurns: 20 })
  return { result, agent, usage: events.filter((e) => e.type === 'usage'), warnings }
}

const scaled = (f) => (request) => (f * requestChars(request)) / 4
const error = (e) => Math.abs(e.estimate.ours.inputTokens - e.reported.inputTokens) / e.reported.inputTokens

describe('toolMemory(): calibration from the usage each response reports', () => {
  test.each([1.3, 0.8])('at %s × characters / 4, the estimate is within 5 %% of the report after three calls', async (f) => {
    const { usage, warnings, result } = await runOnce(scaled(f))
    expect(result.finalOutput).toBe('done')
    expect(usage.map((e) => e.call)).toEqual([0, 1, 2, 3, 4])
    // Uncalibrated, the first call is off by the whole factor; its report teaches the next.
    expect(usage[0].factor).toBe(1)
    expect(error(usage[0])).toBeGreaterThan(0.15)
    expect(usage[4].factor).toBeCloseTo(f, 1)
    expect(error(usage[3])).toBeLessThan(0.05)
    expect(error(usage[4])).toBeLessThan(0.05)
    expect(warnings).toEqual([])
  })

  test('a nonsense report is ignored, with one warning; no usage: estimates only', async () => {
    const plain = await runOnce(null)
    for (const e of plain.usage) expect(e.reported).toBeNull()
    const { usage, warnings } = await runOnce(scaled(800))
    expect(usage.map((e) => e.factor)).toEqual([1, 1, 1, 1, 1])
    expect(usage.map((e) => e.estimate)).toEqual(plain.usage.map((e) => e.estimate))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/reported 800\.00 × the input tokens estimated .* ignored/)
  })

  test('an onEvent that throws never breaks the run, and calibration goes on', async () => {
    const warnings = []
    const memory = toolMemory({ onEvent: () => { throw new Error('metrics down') }, logger: { warn: (m) => warnings.push(m) } })
    const agent = new Agent({ name: 'reader', instructions: INSTRUCTIONS, model: scripted(scaled(1.3)), tools: [...appTools(), ...memory.tools] })
    const result = await run(agent, 'read everything', { callModelInputFilter: memory.callModelInputFilter, maxTurns: 20 })
    expect(result.finalOutput).toBe('done')
    expect(warnings.filter((w) => w.includes('onEvent threw'))).toHaveLength(1)
  })
})

describe('usageTotals(items, options)', () => {
  test("a conversation adds up from its items and the run's Usage, the same after a JSON round trip", async () => {
    const { result, agent, usage } = await runOnce(scaled(1.3))
    const options = { tools: agent.tools, instructions: INSTRUCTIONS, usage: result.state.usage }
    const totals = usageTotals(result.history, options)
    expect(totals.modelCalls).toBe(5)
    expect(totals.compactions).toBeGreaterThan(0)
    expect(totals.recalls).toBe(0)
    expect(totals.reported.calls).toBe(5)
    expect(totals.reported.inputTokens).toBe(usage.reduce((a, e) => a + e.reported.inputTokens, 0))
    // The estimates are the events': the same replay, the same factor.
    for (const w of ['none', 'ours']) expect(totals.estimate[w].cost).toBeCloseTo(usage.reduce((a, e) => a + e.estimate[w].cost, 0), 6)
    expect(totals.saving.ratio).toBeGreaterThan(0)
    // A restart: the history and the usage come back as JSON.
    const reloaded = usageTotals(JSON.parse(JSON.stringify(result.history)), { ...options, usage: JSON.parse(JSON.stringify(result.state.usage)) })
    expect(reloaded).toEqual(totals)
  })

  test('options fail closed', () => {
    expect(() => usageTotals('x')).toThrow(/^usageTotals\(items, options\): items must be an array/)
    expect(() => usageTotals([], { tool: [] })).toThrow(/^usageTotals\(items, options\): unknown option "tool"; did you mean "tools"\?/)
    expect(() => usageTotals([], { usage: 3 })).toThrow(/^usageTotals\(items, options\): usage must be/)
    expect(usageTotals([])).toMatchObject({ modelCalls: 0, compactions: 0, recalls: 0, saving: { cost: 0, ratio: 0 } })
  })
})

describe('two runs at once', () => {
  // One agent, one model answering from the request (so two runs may interleave): each run reads the
  // four results in order, then answers. Run 1 starts with a long message, and each run's requests
  // are reported at its own scale, so a report beside the other run's estimate would show.
  const SCALES = [1.3, 0.7]
  const LONG = PAYLOADS.read_page
  const runOf = (request) => (JSON.stringify(request.input[0]).includes('run 1') ? 1 : 0)
  function sharedModel(log) {
    const respond = ({ request }) => {
      log.push(request)
      const done = request.input.filter((i) => i.type === 'function_call').length
      const output = done < STEPS.length ? [functionCall(STEPS[done][0], {}, { callId: `${STEPS[done][1]}-${runOf(request)}` })] : [assistantMessage('done')]
      return { output, usage: usageOf(Math.round((SCALES[runOf(request)] * requestChars(request)) / 4)) }
    }
    return new ScriptedModel(Array.from({ length: 40 }, () => modelResponder(respond)))
  }
  const inputOf = (i) => (i === 0 ? 'read everything, run 0' : `read everything, run 1\n${LONG}`)

  async function twoAtOnce(context, warmUp) {
    const events = []
    // The scripted model reports no cache reads: the cache check's warning is not what is tested here.
    const memory = toolMemory({ onEvent: (e) => events.push(e), logger: { warn: () => {} } })
    const log = []
    const agent = new Agent({ name: 'reader', instructions: INSTRUCTIONS, model: sharedModel(log), tools: [...appTools(), ...memory.tools] })
    const opts = { callModelInputFilter: memory.callModelInputFilter, maxTurns: 20, context }
    if (warmUp) {
      await run(agent, 'read everything, run 0', opts)
      events.length = 0
    }
    const results = await Promise.all([0, 1].map((i) => run(agent, inputOf(i), opts)))
    expect(results.map((r) => r.finalOutput)).toEqual(['done', 'done'])
    return events.filter((e) => e.type === 'usage')
  }

  // A report beside its own run's estimate: reported / (estimate at factor 1) is that run's scale.
  function expectOwn(usage) {
    for (const e of usage.filter((x) => x.reported !== null)) {
      const raw = e.estimate.ours.inputTokens / e.factor
      const near = SCALES.filter((f) => Math.abs(e.reported.inputTokens / raw - f) < 0.1)
      expect(near).toHaveLength(1)
    }
  }

  test.each([
    ['sharing one context object', { user: 'u1' }],
    ['with no context', undefined],
  ])('%s: no report sits beside the other run’s call', async (_, context) => {
    const usage = await twoAtOnce(context, false)
    expect(usage).toHaveLength(10)
    expectOwn(usage)
    // Only a first call whose run could not be told yet goes without its report.
    expect(usage.filter((e) => e.reported === null).every((e) => e.call === 0)).toBe(true)
    expect(usage.filter((e) => e.reported !== null).length).toBeGreaterThanOrEqual(8)
  })

  test('an agent already watched: every call paired, the first ones by the input each run started with', async () => {
    const usage = await twoAtOnce({ user: 'u1' }, true)
    expect(usage).toHaveLength(10)
    expect(usage.filter((e) => e.reported === null)).toEqual([])
    expectOwn(usage)
  })
})
