// What compaction saved in the Vercel AI SDK adapter (issue 42): the
// calibration factor learned from each step's usage, a nonsense report
// ignored with one warning, no usage (estimates only), countTokens, the
// totals of a conversation (the same after a JSON round trip) and an onEvent
// that throws. ai 7 (MockLanguageModelV4) and ai 6 (MockLanguageModelV3),
// each in a child process (support/ai-sdk-usage-scenario.mjs: ai 7 is ESM only).
const { execFile } = require('node:child_process')
const path = require('node:path')
const { usageTotals } = require('@symfonic/core/ai-sdk')

const ROOT = path.join(__dirname, '..')
const SCENARIO = path.join(__dirname, 'support', 'ai-sdk-usage-scenario.mjs')
const VERSIONS = ['ai', 'ai-v6']

const runs = {}
beforeAll(async () => {
  const run = (v) =>
    new Promise((resolve, reject) =>
      execFile(process.execPath, [SCENARIO, v], { cwd: ROOT, maxBuffer: 64 << 20 }, (err, stdout, stderr) => (err ? reject(new Error(`${v}: ${stderr || err.message}`)) : resolve(JSON.parse(stdout)))),
    )
  // one at a time: the machine running the suite has other work
  for (const v of VERSIONS) runs[v] = await run(v)
}, 300000)

const error = (e) => Math.abs(e.estimate.ours.inputTokens - e.reported.inputTokens) / e.reported.inputTokens

describe.each(VERSIONS)('%s: calibration from the steps’ usage', (v) => {
  test.each(['1.3', '0.8'])('at %s × characters / 4, the estimate is within 5 %% of the report after three calls', (scale) => {
    const { usage, warnings, calls } = runs[v][scale]
    expect(calls).toBe(5)
    expect(usage.map((e) => e.call)).toEqual([0, 1, 2, 3])
    // Uncalibrated at first: off by the whole factor.
    expect(usage[0].factor).toBe(1)
    expect(error(usage[0])).toBeGreaterThan(0.15)
    expect(usage[3].factor).toBeCloseTo(Number(scale), 1)
    expect(error(usage[3])).toBeLessThan(0.05)
    expect(warnings).toEqual([])
  })

  test('a nonsense report is ignored, with one warning', () => {
    const { usage, warnings } = runs[v]['800']
    const plain = runs[v].null.usage
    expect(usage.map((e) => e.factor)).toEqual([1, 1, 1, 1])
    expect(usage.map((e) => e.estimate)).toEqual(plain.map((e) => e.estimate))
    expect(warnings).toHaveLength(1)
    // 800 × the model's own count of the request, which the estimate is near: far outside 0.1–10.
    expect(warnings[0]).toMatch(/reported [78]\d\d\.\d\d × the input tokens estimated .* ignored/)
  })

  test('no usage: estimates only, at factor 1', () => {
    const { usage, warnings } = runs[v].null
    expect(usage).toHaveLength(4)
    for (const e of usage) expect(e).toMatchObject({ reported: null, factor: 1 })
    expect(warnings).toEqual([])
  })

  test('countTokens replaces characters / 4: the CLDR (Japanese) result weighs more', () => {
    const counted = runs[v].counted.usage
    const plain = runs[v].null.usage
    // Call 2 carries the language names in full.
    expect(counted[2].estimate.none.inputTokens).toBeGreaterThan(1.3 * plain[2].estimate.none.inputTokens)
  })

  test('an onEvent that throws never breaks the run: warned once', () => {
    const { text, calls, thrown, warnings } = runs[v].throwing
    expect(text).toBe('It failed on E0277.')
    expect(calls).toBe(5)
    expect(thrown).toBeGreaterThanOrEqual(4)
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/onEvent threw/)
  })
})

describe.each(VERSIONS)('%s: usageTotals(messages, options)', (v) => {
  test('a conversation adds up from its messages and the steps’ usage, the same after a JSON round trip', () => {
    const { totals, reloaded, usage } = runs[v]['1.3']
    expect(totals.modelCalls).toBe(5)
    expect(totals.compactions).toBeGreaterThan(0)
    expect(totals.reported.calls).toBe(5)
    // The first four calls are the events' (the fifth has no next step to report it).
    expect(totals.reported.inputTokens).toBeGreaterThan(usage.reduce((a, e) => a + e.reported.inputTokens, 0))
    expect(totals.saving.ratio).toBeGreaterThan(0)
    expect(reloaded).toEqual(totals)
  })

  test('without the usage: estimates only, and the same calls', () => {
    const { totals } = runs[v].null
    expect(totals.modelCalls).toBe(5)
    expect(totals.reported.calls).toBe(0)
    expect(totals.estimate.ours.cost).toBeGreaterThan(0)
  })
})

test('usageTotals: options fail closed', () => {
  expect(() => usageTotals('x')).toThrow(/^usageTotals\(messages, options\): messages must be an array/)
  expect(() => usageTotals([], { tool: {} })).toThrow(/^usageTotals\(messages, options\): unknown option "tool"; did you mean "tools"\?/)
  expect(() => usageTotals([], { usage: 3 })).toThrow(/^usageTotals\(messages, options\): usage must be an array/)
  expect(() => usageTotals([], { countTokens: 'x' })).toThrow(/countTokens must be a function/)
  expect(usageTotals([])).toMatchObject({ modelCalls: 0, compactions: 0, recalls: 0, saving: { cost: 0, ratio: 0 } })
})
