// @symfonic/core/openai-agents in the installed app. `node openai-agents.mjs without`:
// before @openai/agents is installed, the package and its LangChain entry load
// without it, and toolMemory() says what to install. Without an argument: a
// run with the SDK's scripted model, where a read result becomes a stub.
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const sdkFiles = () => Object.keys(require.cache).filter((f) => f.includes('@openai'))

if (process.argv[2] === 'without') {
  require('@symfonic/core')
  require('@symfonic/core/langchain')
  assert.deepEqual(sdkFiles(), [])
  const { toolMemory } = await import('@symfonic/core/openai-agents')
  assert.throws(() => toolMemory(), /npm install @openai\/agents/)
  console.log('consumer: without @openai/agents the package loads, and toolMemory() says what to install: ok')
} else {
  const { toolMemory } = await import('@symfonic/core/openai-agents')
  const { Agent, run, tool, setTracingDisabled } = await import('@openai/agents')
  setTracingDisabled(true)
  const { ScriptedModel, modelResponder, functionCall, assistantMessage } = await import('@openai/agents/testing')
  const memory = toolMemory({ horizonCalls: Infinity, maxExtraCost: Infinity })
  const rows = JSON.stringify(Array.from({ length: 400 }, (_, i) => ({ id: i, name: `row ${i}` })))
  const noArgs = { type: 'object', properties: {}, required: [], additionalProperties: false }
  const tools = ['a', 'b'].map((name) => tool({ name, description: name, parameters: noArgs, execute: async () => rows }))
  const seen = []
  const step = (out) => modelResponder(({ request }) => (seen.push(request.input), out))
  const model = new ScriptedModel([step([functionCall('a', {}, { callId: 'c1' })]), step([functionCall('b', {}, { callId: 'c2' })]), step([assistantMessage('ok')])])
  const result = await run(new Agent({ name: 'x', model, tools: [...tools, ...memory.tools] }), 'go', { callModelInputFilter: memory.callModelInputFilter })
  assert.equal(result.finalOutput, 'ok')
  const last = seen[2].find((i) => i.type === 'function_call_result' && i.callId === 'c1')
  assert.match(typeof last.output === 'string' ? last.output : last.output.text, /^\[symfonic\.tool_memory v2\]/)
  console.log('consumer: a run with @openai/agents compacts a read result: ok')
}
