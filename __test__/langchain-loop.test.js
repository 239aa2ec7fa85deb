'use strict'
// Compaction inside agent loops, end to end: real createAgent, real
// MemorySaver, LangChain's own anthropicPromptCachingMiddleware, and a
// scripted chat model that records every request.

const { Ledger } = require('..')
const { toolMemoryMiddleware, compactToolMessages } = require('../langchain')
const { createAgent, anthropicPromptCachingMiddleware } = require('langchain')
const { MemorySaver } = require('@langchain/langgraph')
const { AIMessage, HumanMessage, SystemMessage } = require('@langchain/core/messages')
const { tool } = require('@langchain/core/tools')
const { z } = require('zod')
const { ScriptedChatModel, ScriptedChatAnthropic, textOf, marksIn } = require('./support/scripted-model.js')

const HEADER = '[symfonic.tool_memory v2]'
const OPTS = { compactAfter: 'seen', keepLastN: 0, sizeChars: 8000, evictChars: 80000 }

const page = (n) => `Page ${n}\n` + `line of page ${n} with some words in it.\n`.repeat(500) // ~ 20,000 chars
const pageTool = tool(async ({ n }) => page(n), { name: 'get_page', description: 'One page of the manual.', schema: z.object({ n: z.number() }) })
const fileTool = tool(async ({ path }) => `// ${path}\n` + `export const x = 1 // ${path}\n`.repeat(600), {
  name: 'read_file',
  description: 'Read a file.',
  schema: z.object({ path: z.string() }),
})

const calls = (...cs) => () => new AIMessage({ content: '', tool_calls: cs.map(([id, name, args]) => ({ id, name, args, type: 'tool_call' })) })
const say = (content) => () => new AIMessage(content)
const thread = (id) => ({ configurable: { thread_id: id }, recursionLimit: 60 })
const user = (content) => ({ messages: [new HumanMessage(content)] })
const toolMsg = (messages, id) => messages.find((m) => m.type === 'tool' && m.tool_call_id === id)
const isStub = (m) => textOf(m.content).startsWith(HEADER)

describe('a long tool loop in one user turn', () => {
  test('each result stays in full for the call that reads it and is a stub from the next call on', async () => {
    const log = { calls: [] }
    const script = [1, 2, 3, 4].map((n) => calls([`p${n}`, 'get_page', { n }]))
    const agent = createAgent({
      model: new ScriptedChatModel([...script, say('done')], log),
      tools: [pageTool],
      middleware: [toolMemoryMiddleware(OPTS)],
    })
    const out = await agent.invoke(user('read pages 1 to 4'), thread('loop'))
    expect(log.calls).toHaveLength(5)
    for (let k = 1; k <= 4; k++) {
      const seen = log.calls[k].messages
      // The result of the previous call is in full; every earlier one is a stub.
      expect(textOf(toolMsg(seen, `p${k}`).content)).toBe(page(k))
      for (let j = 1; j < k; j++) expect(isStub(toolMsg(seen, `p${j}`))).toBe(true)
    }
    // Stubs are byte-identical from call to call, and the state keeps the originals.
    expect(textOf(toolMsg(log.calls[4].messages, 'p1').content)).toBe(textOf(toolMsg(log.calls[2].messages, 'p1').content))
    for (let n = 1; n <= 4; n++) expect(toolMsg(out.messages, `p${n}`).content).toBe(page(n))
    // Each call's prompt changes only at the freshest position: what the previous call
    // sent, up to its last result, is sent again unchanged (but for that result itself).
    for (let k = 2; k <= 4; k++) {
      const prev = log.calls[k - 1].messages.map((m) => textOf(m.content))
      const cur = log.calls[k].messages.map((m) => textOf(m.content))
      expect(cur.slice(0, prev.length - 1)).toEqual(prev.slice(0, prev.length - 1))
    }
  })

  test('parallel calls: all results of one AIMessage are read in full together, then compacted together', async () => {
    const log = { calls: [] }
    const agent = createAgent({
      model: new ScriptedChatModel(
        [calls(['a', 'get_page', { n: 1 }], ['b', 'get_page', { n: 2 }], ['c', 'read_file', { path: 'src/x.ts' }]), calls(['d', 'get_page', { n: 3 }]), say('done')],
        log,
      ),
      tools: [pageTool, fileTool],
      middleware: [toolMemoryMiddleware(OPTS)],
    })
    await agent.invoke(user('read'), thread('parallel'))
    expect(['a', 'b', 'c'].map((id) => isStub(toolMsg(log.calls[1].messages, id)))).toEqual([false, false, false])
    expect(['a', 'b', 'c', 'd'].map((id) => isStub(toolMsg(log.calls[2].messages, id)))).toEqual([true, true, true, false])
  })

  test('perTool keeps a file reader in full while pages are compacted', async () => {
    const log = { calls: [] }
    const agent = createAgent({
      model: new ScriptedChatModel([calls(['f', 'read_file', { path: 'a.ts' }]), calls(['p', 'get_page', { n: 1 }]), calls(['q', 'get_page', { n: 2 }]), say('done')], log),
      tools: [pageTool, fileTool],
      // Always rewrite: the first compaction would also rewrite the kept file's 18,000 chars.
      middleware: [toolMemoryMiddleware({ ...OPTS, horizonCalls: Infinity, perTool: { read_file: { exempt: true } } })],
    })
    await agent.invoke(user('read'), thread('pertool'))
    const last = log.calls[3].messages
    expect(isStub(toolMsg(last, 'f'))).toBe(false)
    expect(isStub(toolMsg(last, 'p'))).toBe(true)
  })
})

describe('Anthropic breakpoints', () => {
  // Every cache_control a request carries: in its messages, on the system
  // message, and the one anthropicPromptCachingMiddleware asks ChatAnthropic
  // to put on the last message.
  const breakpoints = (call) =>
    call.messages.reduce((a, m) => a + marksIn(m.content), 0) + (call.settings && call.settings.cache_control ? 1 : 0)

  test('with anthropicPromptCachingMiddleware and a cached system prompt, no request exceeds four breakpoints', async () => {
    const log = { calls: [] }
    const script = []
    for (let n = 1; n <= 6; n++) script.push(() => new AIMessage({ content: n % 2 ? `Reading page ${n}.` : '', tool_calls: [{ id: `p${n}`, name: 'get_page', args: { n }, type: 'tool_call' }] }))
    script.push(say('done'))
    const system = new SystemMessage({ content: [{ type: 'text', text: 'You read manuals. '.repeat(50), cache_control: { type: 'ephemeral' } }] })
    const agent = createAgent({
      model: new ScriptedChatAnthropic(script, log),
      tools: [pageTool],
      systemPrompt: system,
      middleware: [toolMemoryMiddleware(OPTS), anthropicPromptCachingMiddleware({ minMessagesToCache: 1 })],
    })
    await agent.invoke(user('read six pages'), thread('anthropic'))
    expect(log.calls).toHaveLength(7)
    let ours = 0
    for (const call of log.calls) {
      // The caching middleware did its part on every call…
      expect(call.settings.cache_control).toEqual({ type: 'ephemeral', ttl: '5m' })
      // …our marks are at most two per request, and the total stays within Anthropic's four.
      const mine = call.messages.filter((m) => m.type !== 'system').reduce((a, m) => a + marksIn(m.content), 0)
      expect(mine).toBeLessThanOrEqual(2)
      expect(breakpoints(call)).toBeLessThanOrEqual(4)
      ours += mine
    }
    expect(ours).toBeGreaterThanOrEqual(log.calls.length - 1)
    // A mark never changes text, and a marked message is cache-stable: the next call
    // sends the same text up to and including it.
    for (let k = 1; k < log.calls.length; k++) {
      const prev = log.calls[k - 1].messages
      const idx = prev.map((m, i) => (m.type !== 'system' && marksIn(m.content) > 0 ? i : -1)).filter((i) => i >= 0)
      const cur = log.calls[k].messages
      for (const i of idx) expect(cur.slice(0, i + 1).map((m) => textOf(m.content))).toEqual(prev.slice(0, i + 1).map((m) => textOf(m.content)))
    }
  })

  test("under 'prefix' (OpenAI-style) nothing is marked", async () => {
    const log = { calls: [] }
    const agent = createAgent({
      model: new ScriptedChatModel([calls(['p1', 'get_page', { n: 1 }]), calls(['p2', 'get_page', { n: 2 }]), say('done')], log, 'openai'),
      tools: [pageTool],
      middleware: [toolMemoryMiddleware(OPTS)],
    })
    await agent.invoke(user('read'), thread('openai'))
    for (const call of log.calls) expect(call.messages.reduce((a, m) => a + marksIn(m.content), 0)).toBe(0)
    expect(isStub(toolMsg(log.calls[2].messages, 'p1'))).toBe(true)
  })
})

describe('determinism across a checkpoint reload', () => {
  test('a new process (fresh ledger and middleware, same checkpointer) sends the same bytes', async () => {
    const checkpointer = new MemorySaver()
    const run = async (script, log, input) => {
      const agent = createAgent({
        model: new ScriptedChatAnthropic(script, log),
        tools: [pageTool],
        checkpointer,
        middleware: [toolMemoryMiddleware({ ...OPTS, ledger: new Ledger() })],
      })
      return agent.invoke(input, thread('reload'))
    }
    const log1 = { calls: [] }
    await run([calls(['p1', 'get_page', { n: 1 }]), calls(['p2', 'get_page', { n: 2 }]), say('first')], log1, user('one'))
    // Same thread, a "restarted" agent: every earlier request is a prefix of the new one.
    const log2 = { calls: [] }
    await run([calls(['p3', 'get_page', { n: 3 }]), say('second')], log2, user('two'))
    const last1 = log1.calls[log1.calls.length - 1].messages
    const first2 = log2.calls[0].messages
    const content = (m) => JSON.stringify(m.content)
    // Text and marks of everything but the last result of run 1 (compacted now that it was answered).
    const upTo = last1.length - 1
    expect(first2.slice(0, upTo).map((m) => textOf(m.content))).toEqual(last1.slice(0, upTo).map((m) => textOf(m.content)))
    expect(isStub(toolMsg(first2, 'p2'))).toBe(true)
    // The originals in the checkpoint, compacted again with a fresh ledger, give that
    // request exactly, marks included: decisions are a function of the messages alone.
    const state = await checkpointer.getTuple(thread('reload'))
    const originals = state.checkpoint.channel_values.messages
    const firstOf2 = originals.slice(0, originals.findIndex((m) => m.tool_call_id === 'p3') - 1)
    const again = await compactToolMessages(firstOf2, new Ledger(), { ...OPTS, cacheModel: 'breakpoint' })
    expect(again.map(content)).toEqual(first2.filter((m) => m.type !== 'system').map(content))
    expect(again.some((m) => marksIn(m.content) > 0)).toBe(true)
  })
})

describe('recall answers in a loop', () => {
  test('a recall answer becomes a note once read; a repeat of the same recall is kept, so the loop ends', async () => {
    const log = { calls: [] }
    let memId = null
    let repeats = 0
    // The model reads page 1, moves on, recalls page 1 in full, moves on, and
    // whenever it finds its recall answer replaced by a note, recalls again.
    const script = (messages, n) => {
      const recallAnswers = messages.filter((m) => m.type === 'tool' && m.name === 'recall_tool_result')
      const latest = recallAnswers[recallAnswers.length - 1]
      if (n === 0) return calls(['p1', 'get_page', { n: 1 }])()
      if (n === 1) return calls(['p2', 'get_page', { n: 2 }])()
      if (n === 2) {
        memId = /mem=(trm_[0-9a-f]+)/.exec(textOf(toolMsg(messages, 'p1').content))[1]
        return calls(['r1', 'recall_tool_result', { mem_id: memId, format: 'full' }])()
      }
      if (latest && textOf(latest.content).includes('recall answer already read')) {
        if (repeats++ > 3) throw new Error('recall loop')
        return calls([`r${repeats + 1}`, 'recall_tool_result', { mem_id: memId, format: 'full' }])()
      }
      if (n < 8) return calls([`q${n}`, 'get_page', { n: 10 + n }])()
      return say('done')()
    }
    const agent = createAgent({ model: new ScriptedChatModel(script, log), tools: [pageTool], middleware: [toolMemoryMiddleware(OPTS)] })
    const out = await agent.invoke(user('go'), thread('recall-loop'))
    expect(repeats).toBe(1)
    const last = log.calls[log.calls.length - 1].messages
    const note = textOf(toolMsg(last, 'r1').content)
    expect(note).toContain('recall answer already read')
    expect(note).toContain(`mem_id="${memId}"`)
    expect(note).toContain('format="full"')
    // The repeated recall stays in full in every later call.
    expect(textOf(toolMsg(last, 'r2').content)).toBe(page(1))
    // The state keeps both answers in full.
    expect(toolMsg(out.messages, 'r1').content).toBe(page(1))
  })
})
