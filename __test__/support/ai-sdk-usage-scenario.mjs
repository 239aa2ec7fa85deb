// Calibration and totals through the real Vercel AI SDK (ai 7, or ai 6
// through the `ai-v6` alias) and `@symfonic/core/ai-sdk`, imported by name
// as an app does. Run by __test__/ai-sdk-usage.test.js in a child process
// (ai 7 is ESM only); prints each run's usage events, warnings and totals as JSON.
//
//   node __test__/support/ai-sdk-usage-scenario.mjs <ai|ai-v6>

import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { z } from 'zod/v4'
import { toolMemory, usageTotals } from '@symfonic/core/ai-sdk'

const [version = 'ai'] = process.argv.slice(2)
const ai = await import(version)
const T = await import(`${version}/test`)
const Mock = version === 'ai' ? T.MockLanguageModelV4 : T.MockLanguageModelV3
// Real payloads (fixtures/payloads/README.md): a CI log, CLDR's Japanese language names.
const fixture = (f) => readFileSync(fileURLToPath(new URL(`../../fixtures/payloads/${f}`, import.meta.url)), 'utf8')
const LOG = fixture('ci-failure.log')
const LANGUAGES = JSON.parse(fixture('cldr-ja-languages.json'))
const INSTRUCTIONS = 'You find why CI runs fail.'

const appTools = {
  read_ci_log: ai.tool({ description: 'The log of a CI run', inputSchema: z.object({ run: z.number() }), execute: async ({ run }) => `run ${run}\n${LOG}` }),
  list_languages: ai.tool({ description: 'CLDR language names', inputSchema: z.object({ locale: z.string() }), execute: async () => LANGUAGES }),
}

// Characters of a request as the model receives it: its tools, then every message's text, outputs and calls.
function requestChars(opts) {
  let c = (opts.tools ?? []).reduce((a, t) => a + JSON.stringify({ type: 'function', function: { name: t.name, description: t.description, parameters: t.inputSchema } }).length, 0)
  for (const m of opts.prompt) {
    if (typeof m.content === 'string') {
      c += m.content.length
      continue
    }
    const calls = []
    for (const p of m.content) {
      if (p.type === 'text') c += p.text.length
      else if (p.type === 'tool-call') calls.push({ id: p.toolCallId, name: p.toolName, args: typeof p.input === 'string' ? JSON.parse(p.input) : p.input })
      else if (p.type === 'tool-result') c += p.output.type === 'text' ? p.output.value.length : JSON.stringify(p.output.value).length
    }
    if (calls.length > 0) c += JSON.stringify(calls).length
  }
  return c
}

const call = (id, toolName, input) => ({ type: 'tool-call', toolCallId: id, toolName, input: JSON.stringify(input) })
// Four reads, then the answer: five calls (the last has no next step, so four are reported).
const ANSWERS = [
  () => [call('c1', 'read_ci_log', { run: 7 })],
  () => [call('c2', 'list_languages', { locale: 'ja' })],
  () => [call('c3', 'read_ci_log', { run: 8 })],
  () => [call('c4', 'list_languages', { locale: 'en' })],
  () => [{ type: 'text', text: 'It failed on E0277.' }],
]
const tokensOf = (input) => ({ inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 9, text: 9, reasoning: 0 } })
const noUsage = { inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: undefined, text: undefined, reasoning: undefined } }

// One conversation; `scale`: the model reports scale × characters / 4 (null: no usage).
async function conversation(scale, options = {}) {
  const events = []
  const warnings = []
  const memory = toolMemory({ tools: appTools, onEvent: (e) => events.push(e), logger: { warn: (m) => warnings.push(m) }, ...options })
  let k = 0
  const sizes = []
  const answer = (opts) => {
    sizes.push(requestChars(opts) / 4)
    const content = ANSWERS[k++]()
    const usage = scale === null ? noUsage : tokensOf(Math.round(scale * sizes[sizes.length - 1]))
    return { content, finishReason: { unified: content.some((c) => c.type === 'tool-call') ? 'tool-calls' : 'stop', raw: undefined }, usage, warnings: [] }
  }
  const model = new Mock({ provider: 'anthropic.messages', modelId: 'claude-mock', doGenerate: async (opts) => answer(opts) })
  const messages = [{ role: 'user', content: 'Why did the CI runs fail?' }]
  const r = await ai.generateText({ model, ...(version === 'ai' ? { instructions: INSTRUCTIONS } : { system: INSTRUCTIONS }), tools: { ...appTools, ...memory.tools }, prepareStep: memory.prepareStep, stopWhen: ai.stepCountIs(10), messages })
  const response = r.responseMessages ?? r.response.messages
  const stored = JSON.parse(JSON.stringify([...messages, ...response]))
  const usage = r.steps.map((s) => s.usage)
  const totalsOptions = { tools: appTools, instructions: INSTRUCTIONS, model: 'claude-mock', usage }
  return {
    calls: k,
    usage: events.filter((e) => e.type === 'usage'),
    warnings,
    totals: usageTotals([...messages, ...response], totalsOptions),
    reloaded: usageTotals(stored, { ...totalsOptions, usage: JSON.parse(JSON.stringify(usage)) }),
  }
}

const out = {}
for (const scale of [1.3, 0.8, 800, null]) out[String(scale)] = await conversation(scale)
// An onEvent that throws on every event: the run goes on, warned once.
const thrown = { count: 0, warnings: [] }
const throwing = toolMemory({ tools: appTools, onEvent: () => { thrown.count++; throw new Error('metrics down') }, logger: { warn: (m) => thrown.warnings.push(m) } })
let j = 0
const model = new Mock({ provider: 'anthropic.messages', modelId: 'claude-mock', doGenerate: async (opts) => { const content = ANSWERS[j++](); return { content, finishReason: { unified: content.some((c) => c.type === 'tool-call') ? 'tool-calls' : 'stop', raw: undefined }, usage: tokensOf(Math.round(requestChars(opts) / 4)), warnings: [] } } })
const r = await ai.generateText({ model, tools: { ...appTools, ...throwing.tools }, prepareStep: throwing.prepareStep, stopWhen: ai.stepCountIs(10), messages: [{ role: 'user', content: 'Why?' }] })
out.throwing = { text: r.text, calls: j, thrown: thrown.count, warnings: thrown.warnings }
// countTokens (a stand-in tokenizer: a CJK character about one token, anything else four characters).
out.counted = await conversation(null, { countTokens: (text) => (text.match(/[\u3040-\u30ff\u3400-\u9fff]/g) || []).length + text.length / 4 })
process.stdout.write(JSON.stringify(out))
