// @symfonic/core/ai-sdk through the real Vercel AI SDK, ai 7 (MockLanguageModelV4)
// and ai 6 (the `ai-v6` alias, MockLanguageModelV3): each conversation runs in a
// child process (ai 7 is ESM only), importing the package by name as an app
// does (support/ai-sdk-scenario.mjs); the assertions are here.
const { execFile, execFileSync } = require('node:child_process')
const path = require('node:path')
const { toolMemory, composePrepareStep } = require('@symfonic/core/ai-sdk')
const { Ledger } = require('@symfonic/core')

const ROOT = path.join(__dirname, '..')
const SCENARIO = path.join(__dirname, 'support', 'ai-sdk-scenario.mjs')
const VERSIONS = ['ai', 'ai-v6']
const SCENARIOS = ['generate', 'stream', 'agent', 'errors', 'refill', 'compose', 'usage']

const runs = {}
beforeAll(async () => {
  const run = (v, s) =>
    new Promise((resolve, reject) =>
      execFile(process.execPath, [SCENARIO, v, s], { cwd: ROOT, maxBuffer: 64 << 20 }, (err, stdout, stderr) => (err ? reject(new Error(`${v} ${s}: ${stderr || err.message}`)) : resolve(JSON.parse(stdout)))),
    )
  // two at a time: the machine running the suite has other work
  const queue = VERSIONS.flatMap((v) => SCENARIOS.map((s) => [v, s]))
  const worker = async () => {
    for (let job = queue.shift(); job !== undefined; job = queue.shift()) runs[job.join(' ')] = await run(...job)
  }
  await Promise.all([worker(), worker()])
}, 300000)

const toolPart = (prompt, id) => prompt.flatMap((m) => (m.role === 'tool' ? m.content : [])).find((p) => p.toolCallId === id)
const outputOf = (prompt, id) => toolPart(prompt, id).output

describe.each(VERSIONS)('%s: the usage event', (v) => {
  const r = () => runs[`${v} usage`]
  // The reports of the model's first three answers (the scenario's `usages`); the fourth has no next step.
  const REPORTED = [
    { inputTokens: 1200, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 11 },
    { inputTokens: 9100, cacheReadTokens: 1100, cacheWriteTokens: 0, outputTokens: 22 },
    { inputTokens: 17300, cacheReadTokens: 8900, cacheWriteTokens: 0, outputTokens: 33 },
  ]

  test('one event per model call, when the next step runs, with the usage the step reported', () => {
    const usage = r().events.filter((e) => e.type === 'usage')
    expect(r().prompts).toHaveLength(4)
    expect(usage.map((e) => e.call)).toEqual([0, 1, 2])
    expect(usage.map((e) => e.reported)).toEqual(REPORTED)
    for (const e of usage) {
      expect(e).toMatchObject({ threadId: null, namespace: '', model: 'claude-mock' })
      expect(e.estimate.ours.inputTokens).toBeGreaterThan(0)
    }
    // Calibration: each report moves the factor of the calls after it.
    expect(usage[0].factor).toBe(1)
    // Call 1 sent the full log; call 2 only recalled (none is 0, as the totals count it).
    expect(usage[1].estimate.ours.inputTokens).toBeGreaterThan(usage[0].estimate.ours.inputTokens + 1000)
    expect(usage[2].estimate.none).toEqual({ inputTokens: 0, cost: 0 })
  })

  test('a model that reports no usage: reported null, estimates only', () => {
    const usage = r().silent.filter((e) => e.type === 'usage')
    expect(usage).toHaveLength(3)
    for (const e of usage) {
      expect(e.reported).toBeNull()
      expect(e.estimate.ours.cost).toBeGreaterThan(0)
    }
  })

  test('an onEvent that throws never breaks the run: warned once', () => {
    const { prompts, thrown, warnings } = r().throwing
    expect(prompts).toBe(4)
    expect(thrown).toBeGreaterThanOrEqual(3)
    expect(warnings.filter((w) => w.includes('onEvent threw'))).toHaveLength(1)
  })
})

describe.each(VERSIONS)('%s', (v) => {
  describe.each(['generate', 'stream', 'agent'])('%s', (mode) => {
    const r = () => runs[`${v} ${mode}`]

    test('the model reads a result in full, then its stub', () => {
      const { prompts, payloads } = r()
      expect(prompts).toHaveLength(4)
      expect(outputOf(prompts[1], 'c1')).toEqual({ type: 'text', value: payloads.log })
      const stub = outputOf(prompts[2], 'c1')
      expect(stub.type).toBe('text')
      expect(stub.value).toMatch(/^\[symfonic\.tool_memory v\d\]\ntool=read_ci_log call_id=c1\nmem=trm_[0-9a-f]{12} size=14206 chars/)
      expect(stub.value.length).toBeLessThan(payloads.log.length / 5)
      // a json output is read in full while fresh, then stubbed as its JSON text
      expect(outputOf(prompts[2], 'c2')).toEqual({ type: 'json', value: JSON.parse(payloads.languages) })
      expect(outputOf(prompts[3], 'c2').value).toMatch(/^\[symfonic\.tool_memory v\d\]\ntool=list_languages call_id=c2\nmem=trm_/)
    })

    test('stubs are byte-identical at every later step', () => {
      const { prompts } = r()
      expect(JSON.stringify(outputOf(prompts[3], 'c1'))).toBe(JSON.stringify(outputOf(prompts[2], 'c1')))
      // the whole prefix the model saw at step 2 is the start of what it sees at step 3, marks aside
      const bare = (m) => JSON.stringify({ ...m, providerOptions: undefined, content: Array.isArray(m.content) ? m.content.map((p) => ({ ...p, providerOptions: undefined })) : m.content })
      expect(prompts[3].slice(0, prompts[2].length - 1).map(bare)).toEqual(prompts[2].slice(0, -1).map(bare))
    })

    test('a recall returns the slice asked for', () => {
      const { prompts } = r()
      const answer = outputOf(prompts[3], 'r1').value
      expect(answer).toContain("1 matching line for pattern 'error\\[E0277\\]'")
      expect(answer).toContain('198:2026-12-03T10:43:17.4087532Z error[E0277]: cannot divide `u32` by `usize`')
    })

    test("each step's response.messages keep the originals", () => {
      const { stepResponses, responseMessages, payloads } = r()
      const parts = (ms) => ms.flatMap((m) => (m.role === 'tool' ? m.content : []))
      expect(parts(stepResponses.flat()).find((p) => p.toolCallId === 'c1').output).toEqual({ type: 'text', value: payloads.log })
      expect(parts(responseMessages).find((p) => p.toolCallId === 'c2').output).toEqual({ type: 'json', value: JSON.parse(payloads.languages) })
      expect(JSON.stringify(responseMessages)).not.toContain('[symfonic.tool_memory')
    })

    test('a Claude model gets Anthropic cache marks through providerOptions', () => {
      const { prompts } = r()
      const mark = { anthropic: { cacheControl: { type: 'ephemeral' } } }
      const marked = prompts[3].flatMap((m) => [m, ...(Array.isArray(m.content) ? m.content : [])]).filter((x) => x.providerOptions && x.providerOptions.anthropic)
      expect(marked.length).toBeGreaterThan(0)
      expect(marked.length).toBeLessThanOrEqual(2)
      for (const x of marked) expect(x.providerOptions).toEqual(mark)
    })

    test('onEvent reports each compaction once', () => {
      const { events } = r()
      const compacted = events.filter((e) => e.type === 'compacted')
      expect(compacted.map((e) => [e.toolCallId, e.kind])).toEqual([
        ['c1', 'stub'],
        ['c2', 'stub'],
      ])
      expect(compacted[0]).toMatchObject({ toolName: 'read_ci_log', chars: 14206, namespace: '' })
      expect(events.filter((e) => e.type === 'recalled')).toEqual([expect.objectContaining({ slice: 'pattern', memId: compacted[0].memId, refilled: false })])
    })
  })

  test('a throwing tool and mistaken recalls get answers, never an exception', () => {
    const { prompts } = runs[`${v} errors`]
    expect(prompts).toHaveLength(3)
    const last = prompts[2]
    expect(outputOf(last, 'f1')).toEqual({ type: 'error-text', value: expect.stringContaining('upstream timed out') })
    expect(outputOf(last, 'u1').value).toBe('[tool_memory not found: trm_0123456789ab in the default namespace]')
    expect(outputOf(last, 'u2').value).toBe('[tool_memory error: mem_id must be a non-empty string]')
    expect(outputOf(last, 'u3').value).toMatch(/^\[recall: unknown argument 'regex' \(did you mean pattern\?\)/)
  })

  test('a recall after a restart refills the original from the messages the step was sent', () => {
    const { prompts, memId, first } = runs[`${v} refill`]
    expect(outputOf(first.prompts[2], 'c1').value).toContain(`mem=${memId}`)
    // the new toolMemory's ledger is empty; the app passed the stored originals
    const answer = outputOf(prompts[1], 'r9').value
    expect(answer).toContain('error[E0277]: cannot divide `u32` by `usize`')
    expect(answer).not.toMatch(/^\[tool_memory/)
  })

  test("composePrepareStep runs the app's prepareStep on our messages", () => {
    const { prompts, seen } = runs[`${v} compose`]
    expect(seen).toEqual([1, 3, 5, 7])
    expect(outputOf(prompts[2], 'c1').value).toMatch(/^\[symfonic\.tool_memory v\d\]/)
  })
})

describe('toolMemory(options)', () => {
  test('answers the recall tool and a prepareStep', () => {
    const m = toolMemory()
    expect(Object.keys(m.tools)).toEqual(['recall_tool_result'])
    expect(typeof m.tools.recall_tool_result.execute).toBe('function')
    expect(typeof m.tools.recall_tool_result.description).toBe('string')
    expect(typeof m.prepareStep).toBe('function')
  })

  test.each([
    [{ offload: true }, /^toolMemory\(options\): unknown option "offload"/],
    [{ countTokens: 4 }, /^toolMemory\(options\): countTokens must be a function/],
    [{ sizeChar: 10 }, /^toolMemory\(options\): unknown option "sizeChar"; did you mean "sizeChars"\?/],
    [{ namespace: () => 'x' }, /^toolMemory\(options\): namespace must be .*one toolMemory\(\) per conversation/],
    [{ ledger: new Ledger(), store: 'sqlite::memory:' }, /^toolMemory\(options\): pass ledger or store, not both/],
    [{ ledger: {} }, /^toolMemory\(options\): ledger must be/],
    [{ sizeChars: -1 }, /^toolMemory\(options\): sizeChars/],
    [{ cacheModel: 'lru' }, /^toolMemory\(options\): cacheModel must be/],
    [{ recallMaxChars: 0 }, /^toolMemory\(options\): recallMaxChars/],
    ['fast', /^toolMemory\(options\): options must be an object/],
    [{ tools: ['search'] }, /^toolMemory\(options\): tools must be your tool set/],
  ])('%p is a TypeError naming toolMemory(options)', (options, message) => {
    expect(() => toolMemory(options)).toThrow(TypeError)
    expect(() => toolMemory(options)).toThrow(message)
  })

  test('tools takes your tool set (only its size is read; bench:context shows the decisions it gives)', () => {
    const search = { description: 'Search.', inputSchema: { jsonSchema: { type: 'object' } } }
    expect(Object.keys(toolMemory({ tools: { search } }).tools)).toEqual(['recall_tool_result'])
    expect(search).toEqual({ description: 'Search.', inputSchema: { jsonSchema: { type: 'object' } } })
  })

  test('a prepareStep given no messages changes nothing', async () => {
    expect(await toolMemory().prepareStep({})).toEqual({})
    expect(await toolMemory().prepareStep({ messages: [{ role: 'user', content: 'hi' }], stepNumber: 0 })).toEqual({})
  })

  test('composePrepareStep refuses what is not a function, and merges answers in order', async () => {
    expect(() => composePrepareStep(() => ({}), 'x')).toThrow(/^composePrepareStep\(\.\.\.prepareSteps\): argument 1 must be a prepareStep function/)
    const f = composePrepareStep(
      () => ({ toolChoice: 'auto', activeTools: ['a'] }),
      undefined,
      (s) => ({ activeTools: [...s.activeTools, 'b'] }),
    )
    expect(await f({ messages: [] })).toEqual({ toolChoice: 'auto', activeTools: ['a', 'b'] })
  })
})

test('@symfonic/core, /langchain and /ai-sdk load without loading ai (nor /ai-sdk LangChain)', () => {
  const probe = (mods) =>
    JSON.parse(
      execFileSync(process.execPath, ['-e', `${mods.map((m) => `require(${JSON.stringify(m)})`).join(';')}; console.log(JSON.stringify(Object.keys(require.cache)))`], { cwd: ROOT }).toString(),
    )
  const loaded = probe(['@symfonic/core', '@symfonic/core/langchain', '@symfonic/core/ai-sdk'])
  expect(loaded.some((f) => f.includes(`${path.sep}ai-sdk${path.sep}`))).toBe(true)
  expect(loaded.filter((f) => /[\\/]node_modules[\\/](ai|ai-v6|@ai-sdk)[\\/]/.test(f))).toEqual([])
  const aiSdkOnly = probe(['@symfonic/core/ai-sdk'])
  expect(aiSdkOnly.filter((f) => /[\\/]node_modules[\\/](@langchain|langchain|ai|@ai-sdk)[\\/]/.test(f))).toEqual([])
})
