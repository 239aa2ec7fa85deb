'use strict'
// No silent misuse: a factory passed without calling it, the createAgent
// middleware and the createReactAgent hook swapped, the hook's recall tool left out of the agent's tools, and runs
// without a thread id. Each is a TypeError when the agent is built, or one
// warning naming the fix, in a real createAgent / createReactAgent.

const { Ledger, memIdFor } = require('..')
const langchainEntry = require('../langchain')
const { toolMemoryMiddleware, toolMemoryPreModelHook, toolPaletteMiddleware, createRecallToolResultTool } = langchainEntry
const { createAgent } = require('langchain')
const { createReactAgent } = require('@langchain/langgraph/prebuilt')
const { MemorySaver } = require('@langchain/langgraph')
const { AIMessage, HumanMessage } = require('@langchain/core/messages')
const { tool } = require('@langchain/core/tools')
const { z } = require('zod')
const { ScriptedChatModel } = require('./support/scripted-model.js')

const BIG = 'line of the export with some words in it\n'.repeat(3000) // ~ 126,000 chars: a stub from first sight
const exportTool = tool(async () => BIG, { name: 'export', description: 'A large export.', schema: z.object({}) })
const calls = (id, name) => () => new AIMessage({ content: '', tool_calls: [{ id, name, args: {}, type: 'tool_call' }] })
const say = (content) => () => new AIMessage(content)
const user = (content) => ({ messages: [new HumanMessage(content)] })

function spyLogger() {
  const messages = []
  return { messages, warn: jest.fn((m) => messages.push(m)) }
}

describe('a factory passed without calling it is a TypeError when the agent is built', () => {
  const model = () => new ScriptedChatModel([calls('c1', 'delete_repo'), say('done')])
  const deleteRepo = tool(async () => 'deleted', { name: 'delete_repo', description: 'Delete a repository.', schema: z.object({}) })

  test.each([
    ['toolMemoryMiddleware', toolMemoryMiddleware, /^toolMemoryMiddleware was passed without being called: it makes a middleware, it is not one; call it: createAgent\(\{ model, tools, middleware: \[toolMemoryMiddleware\(\)\] \}\)$/],
    ['toolPaletteMiddleware', toolPaletteMiddleware, /^toolPaletteMiddleware was passed without being called: it makes a middleware, it is not one; call it: createAgent\(\{ model, tools, middleware: \[toolPaletteMiddleware\(\{ roleTools, role \}\)\] \}\)$/],
    ['toolMemoryPreModelHook', toolMemoryPreModelHook, /^toolMemoryPreModelHook was passed without being called: it makes a preModelHook, it is not one; call it: const hook = toolMemoryPreModelHook\(\); createReactAgent/],
  ])('middleware: [%s]', async (_, factory, message) => {
    const build = () => createAgent({ model: model(), tools: [deleteRepo], middleware: [factory] })
    expect(build).toThrow(TypeError)
    expect(build).toThrow(message)
  })

  test('preModelHook: toolMemoryPreModelHook, and the middleware factory there too', () => {
    const build = (preModelHook) => () => createReactAgent({ llm: model(), tools: [deleteRepo], preModelHook })
    expect(build(toolMemoryPreModelHook)).toThrow(/^toolMemoryPreModelHook was passed without being called: .*call it: const hook = toolMemoryPreModelHook\(\); createReactAgent\(\{ llm, tools: \[\.\.\.tools, hook\.tool\], preModelHook: hook \}\)$/)
    expect(build(toolMemoryMiddleware)).toThrow(/^toolMemoryMiddleware was passed without being called/)
  })

  test('tools: [createRecallToolResultTool], in createAgent and createReactAgent', () => {
    const message = /^createRecallToolResultTool was passed without being called: it makes a tool, it is not one; call it: tools: \[\.\.\.tools, createRecallToolResultTool\(ledger\)\]$/
    expect(() => createAgent({ model: model(), tools: [deleteRepo, createRecallToolResultTool] })).toThrow(message)
    expect(() => createReactAgent({ llm: model(), tools: [deleteRepo, createRecallToolResultTool] })).toThrow(message)
  })

  test('every function the entry exports is either refused uncalled or not a factory', () => {
    const notFactories = ['compactToolMessages', 'cacheModelFor', 'usageTotals']
    const functions = Object.keys(langchainEntry).filter((k) => typeof langchainEntry[k] === 'function')
    expect(functions.filter((k) => !notFactories.includes(k)).sort()).toEqual(['createRecallToolResultTool', 'toolMemoryMiddleware', 'toolMemoryPreModelHook', 'toolPaletteMiddleware'])
    for (const k of functions) {
      const read = () => langchainEntry[k].tools
      if (notFactories.includes(k)) expect(read).not.toThrow()
      else expect(read).toThrow(new RegExp(`^${k} was passed without being called`))
    }
  })

  test('toolPaletteMiddleware called without a policy is a TypeError too: a role alone would have run delete_repo', () => {
    const ran = []
    const guarded = tool(async () => (ran.push('delete_repo'), 'deleted'), { name: 'delete_repo', description: 'Delete a repository.', schema: z.object({}) })
    for (const options of [undefined, {}, { role: 'action' }, { roleTools: undefined, role: 'admin' }]) {
      const build = () => createAgent({ model: model(), tools: [guarded], middleware: [toolPaletteMiddleware(options)] })
      expect(build).toThrow(/^toolPaletteMiddleware\(options\): (no options|no roleTools and no resolver|roleTools is undefined); pass roleTools .* or resolver/)
    }
    expect(ran).toEqual([])
  })

  test('called, each works as before', async () => {
    const ledger = new Ledger()
    const agent = createAgent({ model: new ScriptedChatModel([say('done')]), tools: [exportTool], middleware: [toolMemoryMiddleware({ ledger, logger: spyLogger() })] })
    expect((await agent.invoke(user('go'), { configurable: { thread_id: 'called-1' } })).messages.at(-1).content).toBe('done')
  })

  test('a recall tool of the app beside the middleware is a TypeError naming the fix, and the model is never called', async () => {
    const ledger = new Ledger()
    const log = { calls: [] }
    const agent = createAgent({ model: new ScriptedChatModel([say('done')], log), tools: [createRecallToolResultTool(ledger)], middleware: [toolMemoryMiddleware({ ledger, logger: spyLogger() })] })
    const run = agent.invoke(user('go'), { configurable: { thread_id: 'called-2' } })
    await expect(run).rejects.toThrow(/toolMemoryMiddleware\(options\) binds recall_tool_result itself: remove createRecallToolResultTool\(\.\.\.\) from createAgent's tools/)
    expect(log.calls).toHaveLength(0)
  })
})

describe('the middleware and the hook cannot be swapped silently', () => {
  test('toolMemoryPreModelHook() in createAgent middleware is a TypeError naming toolMemoryMiddleware', () => {
    const model = new ScriptedChatModel([say('done')])
    const build = () => createAgent({ model, tools: [exportTool], middleware: [toolMemoryPreModelHook()] })
    expect(build).toThrow(TypeError)
    expect(build).toThrow(/^toolMemoryPreModelHook\(\) is a createReactAgent preModelHook, not a createAgent middleware .*in createAgent use middleware: \[toolMemoryMiddleware\(\)\]$/)
  })

  test('toolMemoryMiddleware() as createReactAgent preModelHook is a TypeError naming toolMemoryPreModelHook', () => {
    const llm = new ScriptedChatModel([say('done')])
    const build = () => createReactAgent({ llm, tools: [exportTool], preModelHook: toolMemoryMiddleware() })
    expect(build).toThrow(TypeError)
    expect(build).toThrow(/^toolMemoryMiddleware\(\) is a createAgent middleware, not a preModelHook; for createReactAgent use const hook = toolMemoryPreModelHook\(\)/)
  })

  test('each still works where it belongs', async () => {
    const log = { calls: [] }
    const model = new ScriptedChatModel([calls('c1', 'export'), say('done')], log)
    const agent = createAgent({ model, tools: [exportTool], middleware: [toolMemoryMiddleware({ logger: spyLogger() })] })
    await agent.invoke(user('go'), { configurable: { thread_id: 'ok-1' } })
    expect(log.calls[1].messages.at(-1).content).toMatch(/^\[symfonic\.tool_memory v2\]/)

    const hook = toolMemoryPreModelHook({ logger: spyLogger() })
    const hlog = { calls: [] }
    const llm = new ScriptedChatModel([calls('c1', 'export'), say('done')], hlog)
    const react = createReactAgent({ llm, tools: [exportTool, hook.tool], preModelHook: hook })
    await react.invoke(user('go'), { configurable: { thread_id: 'ok-2' } })
    expect(hlog.calls[1].messages.at(-1).content).toMatch(/^\[symfonic\.tool_memory v2\]/)
  })
})

describe('the hook without hook.tool in the tools', () => {
  async function run(withTool) {
    const logger = spyLogger()
    const hook = toolMemoryPreModelHook({ logger })
    const tools = withTool ? [exportTool, hook.tool] : [exportTool]
    const llm = new ScriptedChatModel([calls('c1', 'export'), calls('c2', 'export'), say('done')])
    const agent = createReactAgent({ llm, tools, preModelHook: hook })
    await agent.invoke(user('go'), { configurable: { thread_id: `tool-${withTool}` } })
    return logger.messages
  }

  test('warns once, when the model is first shown a stub, naming the fix', async () => {
    expect(await run(false)).toEqual([
      "toolMemoryPreModelHook(options): the model is shown stubs, but hook.tool (recall_tool_result) is not among the agent's tools, so it cannot read them back; " +
        'add it: createReactAgent({ llm, tools: [...tools, hook.tool], preModelHook: hook })',
    ])
  })

  test('says nothing when hook.tool is in the tools', async () => {
    expect(await run(true)).toEqual([])
  })
})

describe('a run without a thread_id', () => {
  async function run(options, config) {
    const logger = spyLogger()
    const ledger = new Ledger()
    const model = new ScriptedChatModel([calls('c1', 'export'), say('one'), calls('c2', 'export'), say('two')])
    const agent = createAgent({ model, tools: [exportTool], middleware: [toolMemoryMiddleware({ ledger, logger, ...options })], checkpointer: config ? new MemorySaver() : undefined })
    await agent.invoke(user('first'), config)
    await agent.invoke(user('second'), config)
    return { messages: logger.messages, ledger }
  }

  test('warns once that results go to the shared namespace, naming both fixes', async () => {
    const { messages, ledger } = await run({})
    expect(messages).toEqual([
      "toolMemoryMiddleware(options): a run without configurable.thread_id records its results in the shared namespace '' (every such run can recall the others'); " +
        'pass { configurable: { thread_id } } to invoke, or set the namespace option (a string or a function of the run config)',
    ])
    // both runs recorded into the one namespace ''
    expect((await ledger.handle(memIdFor('c1', BIG))).namespace).toBe('')
    expect((await ledger.handle(memIdFor('c2', BIG))).namespace).toBe('')
  })

  test('is quiet with a thread_id or an explicit namespace', async () => {
    expect((await run({}, { configurable: { thread_id: 't-1' } })).messages).toEqual([])
    expect((await run({ namespace: 'tenant-a' })).messages).toEqual([])
    expect((await run({ namespace: () => 'tenant-b' })).messages).toEqual([])
  })

  test('the hook warns the same way', async () => {
    const logger = spyLogger()
    const hook = toolMemoryPreModelHook({ logger })
    const llm = new ScriptedChatModel([calls('c1', 'export'), say('done')])
    await createReactAgent({ llm, tools: [exportTool, hook.tool], preModelHook: hook }).invoke(user('go'))
    expect(logger.messages).toEqual([expect.stringMatching(/^toolMemoryPreModelHook\(options\): a run without configurable\.thread_id records its results in the shared namespace ''/)])
  })
})
