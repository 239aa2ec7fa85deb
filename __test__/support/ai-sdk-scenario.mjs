// One conversation through the real Vercel AI SDK (ai 7, or ai 6 through the
// `ai-v6` alias) and `@symfonic/core/ai-sdk`, imported by name as an app does.
// Run by __test__/ai-sdk.test.js in a child process (ai 7 is ESM only, which
// jest's CommonJS runtime cannot load); prints what the SDK's test model
// received and what each step kept, as JSON.
//
//   node __test__/support/ai-sdk-scenario.mjs <ai|ai-v6> <generate|stream|agent|errors|refill>

import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { z } from 'zod/v4'
import { toolMemory, composePrepareStep } from '@symfonic/core/ai-sdk'

const [version = 'ai', scenario = 'generate'] = process.argv.slice(2)
const ai = await import(version)
const T = await import(`${version}/test`)
const Mock = version === 'ai' ? T.MockLanguageModelV4 : T.MockLanguageModelV3
const fixture = (f) => readFileSync(fileURLToPath(new URL(`../../fixtures/payloads/${f}`, import.meta.url)), 'utf8')
const LOG = fixture('ci-failure.log') // a CI log: a text output
const LANGUAGES = JSON.parse(fixture('cldr-ja-languages.json')) // CLDR: a json output
const MEM_ID = /trm_[0-9a-f]{12}/

const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } }
const call = (id, toolName, input) => ({ type: 'tool-call', toolCallId: id, toolName, input: JSON.stringify(input) })
const text = (t) => ({ type: 'text', text: t })

// The model: a script of answers, each a function of the prompt it receives.
// `usages[k]`: the usage answer k reports (default `usage`).
function scripted(answers, usages = []) {
  const prompts = []
  const answer = (opts) => {
    prompts.push(JSON.parse(JSON.stringify(opts.prompt)))
    const content = answers[prompts.length - 1](opts.prompt)
    const u = usages[prompts.length - 1] ?? usage
    return { content, finishReason: { unified: content.some((c) => c.type === 'tool-call') ? 'tool-calls' : 'stop', raw: undefined }, usage: u, warnings: [] }
  }
  const model = new Mock({
    provider: 'anthropic.messages',
    modelId: 'claude-mock',
    doGenerate: async (opts) => answer(opts),
    doStream: async (opts) => {
      const { content, finishReason, usage } = answer(opts)
      const parts = [{ type: 'stream-start', warnings: [] }]
      for (const c of content) {
        if (c.type === 'text') parts.push({ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: c.text }, { type: 'text-end', id: 't' })
        else parts.push(c)
      }
      parts.push({ type: 'finish', finishReason, usage })
      return { stream: T.convertArrayToReadableStream(parts) }
    },
  })
  return { model, prompts }
}

// The id of the stub standing for `toolCallId`'s result in a prompt.
function memIdIn(prompt, toolCallId) {
  for (const m of prompt) {
    if (m.role !== 'tool') continue
    for (const p of m.content) if (p.toolCallId === toolCallId && p.output.type === 'text' && MEM_ID.test(p.output.value)) return MEM_ID.exec(p.output.value)[0]
  }
  return 'trm_000000000000'
}

const events = []
const appTools = {
  read_ci_log: ai.tool({ description: 'The log of a CI run', inputSchema: z.object({ run: z.number() }), execute: async () => LOG }),
  list_languages: ai.tool({ description: 'CLDR language names', inputSchema: z.object({ locale: z.string() }), execute: async () => LANGUAGES }),
  flaky: ai.tool({ description: 'Always fails', inputSchema: z.object({}), execute: async () => { throw new Error('upstream timed out') } }),
}

async function run({ memory, answers, messages = [{ role: 'user', content: 'Why did the CI run fail?' }], mode = 'generate', prepareStep, usages }) {
  const { model, prompts } = scripted(answers, usages)
  const settings = { model, tools: { ...appTools, ...memory.tools }, prepareStep: prepareStep ?? memory.prepareStep, stopWhen: ai.stepCountIs(10) }
  let steps
  let response
  if (mode === 'stream') {
    const r = ai.streamText({ ...settings, messages })
    await r.consumeStream()
    steps = await r.steps
    // ai 7 answers every step's messages as responseMessages (its response.messages are the last step's); ai 6 as response.messages
    response = r.responseMessages !== undefined ? await r.responseMessages : (await r.response).messages
  } else if (mode === 'agent') {
    const agent = new ai.ToolLoopAgent(settings)
    const r = await agent.generate({ messages })
    steps = r.steps
    response = r.responseMessages ?? r.response.messages
  } else {
    const r = await ai.generateText({ ...settings, messages })
    steps = r.steps
    response = r.responseMessages ?? r.response.messages
  }
  return { prompts, stepResponses: steps.map((s) => s.response.messages), responseMessages: response }
}

// The loop every scenario but 'errors' and 'refill' runs: read the log, list
// the languages, recall a slice of the log from its stub, answer.
const mainAnswers = [
  () => [call('c1', 'read_ci_log', { run: 7 })],
  () => [text('Reading the languages too.'), call('c2', 'list_languages', { locale: 'ja' })],
  (p) => [call('r1', 'recall_tool_result', { mem_id: memIdIn(p, 'c1'), pattern: 'error\\[E0277\\]' })],
  () => [text('It failed on E0277: cannot divide u32 by usize.')],
]

let out
if (scenario === 'errors') {
  const memory = toolMemory({ onEvent: (e) => events.push(e) })
  out = await run({
    memory,
    answers: [
      () => [call('f1', 'flaky', {})],
      () => [call('u1', 'recall_tool_result', { mem_id: 'trm_0123456789ab' }), call('u2', 'recall_tool_result', { mem_id: 42, lines: 'x' }), call('u3', 'recall_tool_result', { mem_id: 'trm_0123456789ab', regex: 'a' })],
      () => [text('done')],
    ],
  })
} else if (scenario === 'refill') {
  // A first run, then the conversation continued by a fresh toolMemory (a
  // restart: a new, empty ledger) on the messages the app stored.
  const first = await run({ memory: toolMemory({ cacheModel: 'prefix' }), answers: mainAnswers.slice(0, 2).concat([() => [text('noted')]]) })
  const stored = [{ role: 'user', content: 'Why did the CI run fail?' }, ...first.responseMessages, { role: 'user', content: 'Which error exactly?' }]
  const memId = memIdIn(first.prompts[2], 'c1')
  out = await run({ memory: toolMemory({ cacheModel: 'prefix' }), messages: stored, answers: [() => [call('r9', 'recall_tool_result', { mem_id: memId, query: 'E0277' })], () => [text('E0277')]] })
  out.memId = memId
  out.first = first
} else if (scenario === 'usage') {
  // Each answer reports its own usage (cache reads included); then a model
  // that reports none; then an onEvent that throws on every event.
  const reported = (input, read, output) => ({ inputTokens: { total: input, noCache: input - read, cacheRead: read, cacheWrite: 0 }, outputTokens: { total: output, text: output, reasoning: 0 } })
  const usages = [reported(1200, 0, 11), reported(9100, 1100, 22), reported(17300, 8900, 33), reported(17800, 17000, 44)]
  const memory = toolMemory({ cacheModel: 'prefix', onEvent: (e) => events.push(e) })
  out = await run({ memory, answers: mainAnswers, usages })
  const none = { inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: undefined, text: undefined, reasoning: undefined } }
  const silent = []
  await run({ memory: toolMemory({ onEvent: (e) => silent.push(e) }), answers: mainAnswers, usages: mainAnswers.map(() => none) })
  out.silent = silent
  const warnings = []
  let thrown = 0
  const throwing = toolMemory({ onEvent: () => { thrown++; throw new Error('metrics down') }, logger: { warn: (m) => warnings.push(m) } })
  const t = await run({ memory: throwing, answers: mainAnswers, usages })
  out.throwing = { prompts: t.prompts.length, thrown, warnings }
} else if (scenario === 'compose') {
  // The app's own prepareStep, composed after ours: it sees our messages.
  const memory = toolMemory({ onEvent: (e) => events.push(e) })
  const seen = []
  const mine = (step) => {
    seen.push(step.messages.length)
    return { toolChoice: 'auto' }
  }
  out = await run({ memory, answers: mainAnswers, prepareStep: composePrepareStep(memory.prepareStep, mine) })
  out.seen = seen
} else {
  out = await run({ memory: toolMemory({ onEvent: (e) => events.push(e) }), answers: mainAnswers, mode: scenario })
}
out.events = events
out.payloads = { log: LOG, languages: JSON.stringify(LANGUAGES) }
process.stdout.write(JSON.stringify(out))
