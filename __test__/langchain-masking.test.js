'use strict'
// Compaction of every result the model has read (issue 27), end to end with
// real createAgent and a scripted model, and on hand-built histories: one-line
// notes in batches that repay their rewrite, stable across a checkpoint
// reload; a result the model keeps quoting stays; the horizon grows with the
// conversation; a short conversation costs exactly what it costs without the
// middleware; a note leads back to the full result.

const { Ledger, memIdFor } = require('..')
const { toolMemoryMiddleware, compactToolMessages } = require('../langchain')
const { createAgent } = require('langchain')
const { MemorySaver } = require('@langchain/langgraph')
const { AIMessage, HumanMessage, ToolMessage } = require('@langchain/core/messages')
const { tool } = require('@langchain/core/tools')
const { convertToOpenAITool } = require('@langchain/core/utils/function_calling')
const { z } = require('zod')
const { ScriptedChatModel, textOf } = require('./support/scripted-model.js')

const NOTE = /^\[run result of (\d+) chars not shown: recall_tool_result\(mem_id='(trm_[0-9a-f]{12})', format="full"\)\]$/

// Plain words only: nothing in an output is a token the model could quote.
function output(n, chars) {
  const line = `output of step ${['one', 'two', 'three', 'four', 'five'][n % 5]} with some plain words in it\n`
  return line.repeat(Math.ceil(chars / line.length)).slice(0, chars)
}
const runTool = (chars) => tool(async ({ n }) => output(n, chars + n), { name: 'run', description: 'Run a step.', schema: z.object({ n: z.number() }) })
const step = (n) => () => new AIMessage({ content: 'Next step.', tool_calls: [{ id: `s${n}`, name: 'run', args: { n }, type: 'tool_call' }] })
const say = (content) => () => new AIMessage(content)
const thread = (id) => ({ configurable: { thread_id: id }, recursionLimit: 200 })
const user = (content) => ({ messages: [new HumanMessage(content)] })
const toolMsg = (messages, id) => messages.find((m) => m.type === 'tool' && m.tool_call_id === id)
const toolNames = (call) => call.tools.map((t) => t.name)

describe('a long loop of small results', () => {
  const STEPS = 40
  // A window of 4 calls: deep rewrites, batched; without the budget, which has its own tests.
  const OPTS = { windowCalls: 4, quotedCalls: 0, horizonCalls: 'auto', sizeChars: 8000, maxExtraCost: Infinity }

  test('old results become one-line notes, in batches, byte-identical from call to call and after a checkpoint reload', async () => {
    const checkpointer = new MemorySaver()
    const log = { calls: [] }
    const script = [...Array.from({ length: STEPS }, (_, n) => step(n)), say('done')]
    const agent = createAgent({ model: new ScriptedChatModel(script, log), tools: [runTool(3000)], checkpointer, middleware: [toolMemoryMiddleware({ ...OPTS, ledger: new Ledger() })] })
    await agent.invoke(user('run the steps'), thread('mask'))
    expect(log.calls).toHaveLength(STEPS + 1)

    const last = log.calls[STEPS].messages
    const notes = new Map()
    for (let n = 0; n < STEPS; n++) {
      const m = toolMsg(last, `s${n}`)
      const original = output(n, 3000 + n)
      // The call that read s(n) is call n + 1; results older than the window are notes.
      if (STEPS - (n + 1) <= OPTS.windowCalls) {
        expect(textOf(m.content)).toBe(original)
        continue
      }
      const match = NOTE.exec(textOf(m.content))
      if (match === null) continue // still waiting for its batch
      expect(Number(match[1])).toBe(original.length)
      expect(match[2]).toBe(memIdFor(`s${n}`, original))
      expect(m.response_metadata.tool_memory).toEqual({ memId: match[2], compacted: true, note: true })
      notes.set(`s${n}`, textOf(m.content))
    }
    expect(notes.size).toBeGreaterThan(STEPS / 2)

    // Batches: each rewrite compacts several results at once, and a note never changes.
    const compactedAt = new Map()
    log.calls.forEach((call, k) => {
      for (const m of call.messages) {
        if (m.type !== 'tool' || !NOTE.test(textOf(m.content))) continue
        if (!compactedAt.has(m.tool_call_id)) compactedAt.set(m.tool_call_id, k)
        else expect(textOf(m.content)).toBe(textOf(toolMsg(log.calls[compactedAt.get(m.tool_call_id)].messages, m.tool_call_id).content))
      }
    })
    const rewrites = new Set(compactedAt.values())
    expect(rewrites.size).toBeLessThan(compactedAt.size / 2)
    expect(Math.max(...[...rewrites].map((k) => [...compactedAt.values()].filter((x) => x === k).length))).toBeGreaterThanOrEqual(3)
    // The recall tool is on every request, from the first: compaction never changes the tool block.
    expect(log.calls.every((c) => toolNames(c).join() === 'run,recall_tool_result')).toBe(true)

    // A restarted process: fresh ledger and middleware, the same checkpoint.
    const log2 = { calls: [] }
    const again = createAgent({ model: new ScriptedChatModel([step(STEPS), say('done again')], log2), tools: [runTool(3000)], checkpointer, middleware: [toolMemoryMiddleware({ ...OPTS, ledger: new Ledger() })] })
    await again.invoke(user('one more'), thread('mask'))
    for (const [id, text] of notes) expect(textOf(toolMsg(log2.calls[0].messages, id).content)).toBe(text)
    expect(toolNames(log2.calls[0])).toContain('recall_tool_result')
  })

  test('a note leads back to the result: recall_tool_result with its mem_id answers the original in full', async () => {
    const log = { calls: [] }
    let asked = null
    const script = (messages, k) => {
      if (k < 30) return step(k)()
      if (asked === null) {
        const note = messages.find((m) => m.type === 'tool' && NOTE.test(textOf(m.content)))
        asked = { id: note.tool_call_id, memId: NOTE.exec(textOf(note.content))[2] }
        return new AIMessage({ content: '', tool_calls: [{ id: 'r1', name: 'recall_tool_result', args: { mem_id: asked.memId, format: 'full' }, type: 'tool_call' }] })
      }
      return say('done')()
    }
    // windowCalls 0: each result is offered the call after the model read it.
    const agent = createAgent({ model: new ScriptedChatModel(script, log), tools: [runTool(3000)], middleware: [toolMemoryMiddleware({ ...OPTS, windowCalls: 0 })] })
    const out = await agent.invoke(user('run, then look back'), thread('recall'))
    const n = Number(asked.id.slice(1))
    expect(toolMsg(out.messages, 'r1').content).toBe(output(n, 3000 + n))
    // The model read the answer in full on the next call.
    expect(textOf(toolMsg(log.calls[31].messages, 'r1').content)).toBe(output(n, 3000 + n))
  })
})

describe('a result the model keeps quoting stays in full', () => {
  const listing = ['def parse_header_v2(buf):', '    return HEADER_LIMIT_42', 'def decode_chunk_7(x):', '    pass', ''].join('\n').repeat(60)
  const plain = (tag) => `${tag} plain output with nothing in it worth quoting\n`.repeat(50)
  const calling = (id, content) => new AIMessage({ content, tool_calls: [{ id, name: 'run', args: {}, type: 'tool_call' }] })
  const result = (id, content) => new ToolMessage({ content, tool_call_id: id, name: 'run' })
  // The model reads a listing, then its next messages quote names from it, then stop.
  const history = [
    new HumanMessage('fix the parser'),
    calling('src', 'Reading the source.'),
    result('src', listing),
    calling('x', 'parse_header_v2 looks wrong; running the tests.'),
    result('x', plain('x')),
    calling('y', 'HEADER_LIMIT_42 is too small for decode_chunk_7.'),
    result('y', plain('y')),
    calling('z', 'Trying again.'),
    result('z', plain('z')),
    calling('v', 'Still looking.'),
    result('v', plain('v')),
    calling('u', 'Once more.'),
    result('u', plain('u')),
  ]
  const OPTS = { windowCalls: 0, quotedCalls: 2, horizonCalls: Infinity }
  const compactedAfter = async (end, opts) => {
    const out = await compactToolMessages(history.slice(0, end), new Ledger(), opts)
    return (id) => {
      const m = toolMsg(out, id)
      return m !== undefined && m !== toolMsg(history, id)
    }
  }

  test('quoted in the last quotedCalls calls: in full; unquoted for longer: compacted', async () => {
    // The answers of calls 1 and 2 use names from the listing: it stays while they are recent.
    expect((await compactedAfter(4, OPTS))('src')).toBe(false)
    for (const end of [6, 8]) {
      const c = await compactedAfter(end, OPTS)
      expect(c('src')).toBe(false)
      expect(c('x')).toBe(true) // read, never quoted: compacted the call after
    }
    // Three calls after the last quote, it goes too.
    expect((await compactedAfter(10, OPTS))('src')).toBe(true)
    // quotedCalls 0: no exception, the listing goes the call after it was read.
    expect((await compactedAfter(4, { ...OPTS, quotedCalls: 0 }))('src')).toBe(true)
  })

  test('a name the user gave first is not a quote of the result', async () => {
    const told = [new HumanMessage('parse_header_v2 and HEADER_LIMIT_42 are broken'), ...history.slice(1)]
    const out = await compactToolMessages(told.slice(0, 7), new Ledger(), OPTS)
    expect(toolMsg(out, 'src')).not.toBe(toolMsg(told, 'src'))
  })
})

describe('the horizon adapts to the conversation', () => {
  const text = (tag, chars) => `${tag}: lorem ipsum dolor sit amet\n`.repeat(Math.ceil(chars / 28)).slice(0, chars)
  const exchange = (id, content) => [new AIMessage({ content: '', tool_calls: [{ id, name: 'read', args: {}, type: 'tool_call' }] }), new ToolMessage({ content, tool_call_id: id, name: 'read' })]
  // At the turn boundary the kept result b lies after a: compacting a rewrites b's 40,000 cached chars.
  const history = (earlierCalls) => [
    new HumanMessage('one'),
    ...Array.from({ length: earlierCalls }, (_, i) => exchange(`t${i}`, 'ok')).flat(),
    ...exchange('a', text('a', 20000)),
    ...exchange('b', text('b', 40000)),
    new AIMessage('answer'),
    new HumanMessage('two'),
  ]
  // Without the budget (maxExtraCost Infinity), which has its own tests: this one is about the horizon.
  const OPTS = { compactAfter: 'turn', keepLastN: 1, windowCalls: Infinity, quotedCalls: 0, maxExtraCost: Infinity }
  const isCompacted = (out, input) => toolMsg(out, 'a') !== toolMsg(input, 'a')

  test("'auto': a deep rewrite waits in a young conversation and pays in one that has run 40 calls", async () => {
    const young = history(0)
    expect(isCompacted(await compactToolMessages(young, new Ledger(), { ...OPTS, horizonCalls: 'auto' }), young)).toBe(false)
    const old = history(40)
    expect(isCompacted(await compactToolMessages(old, new Ledger(), { ...OPTS, horizonCalls: 'auto' }), old)).toBe(true)
    // A fixed horizon does not grow: the same rewrite still waits after 40 calls.
    expect(isCompacted(await compactToolMessages(old, new Ledger(), { ...OPTS, horizonCalls: 4 }), old)).toBe(false)
  })
})

describe('never worse than doing nothing', () => {
  // Pages smaller than twice their note: compacting one could never pay.
  const pageTool = () => tool(async ({ n }) => `page ${n}\n` + 'a line of the page\n'.repeat(8), { name: 'get_page', description: 'A page.', schema: z.object({ n: z.number() }) })
  const script = () => [...Array.from({ length: 5 }, (_, n) => () => new AIMessage({ content: '', tool_calls: [{ id: `p${n}`, name: 'get_page', args: { n }, type: 'tool_call' }] })), say('done')]
  // What a provider receives of the messages: every message's text.
  const messagesOf = (call) => JSON.stringify(call.messages.map((m) => [m.type, m.tool_call_id, textOf(m.content)]))

  test('a short conversation where nothing pays sends the messages it sends without the middleware, and the recall tool', async () => {
    const plainLog = { calls: [] }
    await createAgent({ model: new ScriptedChatModel(script(), plainLog), tools: [pageTool()] }).invoke(user('read'), thread('plain'))
    const log = { calls: [] }
    await createAgent({ model: new ScriptedChatModel(script(), log), tools: [pageTool()], middleware: [toolMemoryMiddleware()] }).invoke(user('read'), thread('short'))
    expect(log.calls).toHaveLength(plainLog.calls.length)
    log.calls.forEach((call, k) => {
      // No rewrite: the same messages; the one fixed cost is the recall tool's definition, on every request.
      expect(toolNames(call)).toEqual(['get_page', 'recall_tool_result'])
      expect(messagesOf(call)).toBe(messagesOf(plainLog.calls[k]))
    })
  })
})
