'use strict'
// Offload mode: a large result goes to the ledger's store when the tool
// returns it and the graph state keeps only the stub, so checkpoints stay
// small; the model sees the same stubs as without offload, and recall works
// after the agent is rebuilt on a fresh Ledger over the same store.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { Ledger } = require('..')
const { toolMemoryMiddleware, toolMemoryPreModelHook } = require('../langchain')
const { createAgent } = require('langchain')
const { MemorySaver } = require('@langchain/langgraph')
const { AIMessage, HumanMessage } = require('@langchain/core/messages')
const { tool } = require('@langchain/core/tools')
const { z } = require('zod')
const { ScriptedChatModel, textOf } = require('./support/scripted-model.js')

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'symfonic-offload-'))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
let n = 0
const store = () => `sqlite:${path.join(dir, `offload-${n++}.db`)}`

const CATALOG = JSON.stringify({ items: Array.from({ length: 27000 }, (_, i) => ({ sku: `SKU-${String(i).padStart(5, '0')}`, price: (i * 7) % 1000, title: `item ${i} with a long enough title` })) }) // ~ 2 MB
const catalogTool = tool(async () => CATALOG, { name: 'get_catalog', description: 'The catalog.', schema: z.object({}) })
const noteTool = tool(async ({ i }) => `note ${i}`, { name: 'note', description: 'A small note.', schema: z.object({ i: z.number() }) })
const calls = (id, name, args) => () => new AIMessage({ content: '', tool_calls: [{ id, name, args, type: 'tool_call' }] })
const thread = (id) => ({ configurable: { thread_id: id } })

// Bytes a MemorySaver holds: its checkpoints and its pending writes.
function checkpointBytes(saver) {
  let bytes = 0
  const walk = (v) => {
    if (v instanceof Uint8Array) bytes += v.byteLength
    else if (typeof v === 'string') bytes += Buffer.byteLength(v)
    else if (Array.isArray(v)) v.forEach(walk)
    else if (v && typeof v === 'object') Object.values(v).forEach(walk)
  }
  walk(saver.storage)
  walk(saver.writes)
  return bytes
}

// A 12-call loop: the catalog first, then ten small notes, then an answer.
function loopScript() {
  const script = [calls('c1', 'get_catalog', {})]
  for (let i = 0; i < 10; i++) script.push(calls(`n${i}`, 'note', { i }))
  script.push(() => new AIMessage('done'))
  return script
}

async function runLoop(offload) {
  const ledger = new Ledger({ store: store() })
  const saver = new MemorySaver()
  const log = { calls: [] }
  const agent = createAgent({
    model: new ScriptedChatModel(loopScript(), log),
    tools: [catalogTool, noteTool],
    checkpointer: saver,
    middleware: [toolMemoryMiddleware({ ledger, offload, compactAfter: 'seen' })],
  })
  const out = await agent.invoke({ messages: [new HumanMessage('load the catalog, then take notes')] }, thread('loop'))
  return { ledger, saver, log, out }
}

describe('offload mode', () => {
  test('createReactAgent: hook.offloadTools keeps the stub in the state, and recall answers from the store', async () => {
    const { createReactAgent } = require('@langchain/langgraph/prebuilt')
    const ledger = new Ledger({ store: store() })
    const hook = toolMemoryPreModelHook({ ledger, offload: true })
    const saver = new MemorySaver()
    const log = { calls: [] }
    const agent = createReactAgent({
      llm: new ScriptedChatModel(
        [
          calls('c1', 'get_catalog', {}),
          (messages) => {
            const memId = /mem=(trm_[0-9a-f]+)/.exec(textOf(messages.find((m) => m.tool_call_id === 'c1').content))[1]
            return calls('r1', 'recall_tool_result', { mem_id: memId, json_path: 'items.7.sku' })()
          },
          () => new AIMessage('done'),
        ],
        log,
      ),
      tools: [...hook.offloadTools([catalogTool, noteTool]), hook.tool],
      preModelHook: hook,
      checkpointer: saver,
    })
    const out = await agent.invoke({ messages: [new HumanMessage('load it')] }, thread('react'))
    const inState = out.messages.find((m) => m.tool_call_id === 'c1')
    expect(textOf(inState.content)).toMatch(/^\[symfonic.tool_memory v2\]/)
    expect(inState.response_metadata.tool_memory.offloaded).toBe(true)
    expect(out.messages.find((m) => m.tool_call_id === 'r1').content).toBe('"SKU-00007"')
    expect(checkpointBytes(saver)).toBeLessThan(CATALOG.length)
  })

  test("with the in-memory store 'sqlite::memory:' (no file): offload works, and entries past maxBytes are recalled from the store", async () => {
    // maxBytes far below the 2 MB result: the LRU cannot keep it, the store does.
    const ledger = await Ledger.open({ store: 'sqlite::memory:', maxBytes: 1000 })
    const saver = new MemorySaver()
    const log = { calls: [] }
    const agent = createAgent({
      model: new ScriptedChatModel(
        [
          calls('c1', 'get_catalog', {}),
          calls('c2', 'get_catalog', {}), // a second copy evicts the first from memory
          (messages) => {
            const memId = /mem=(trm_[0-9a-f]+)/.exec(textOf(messages.find((m) => m.tool_call_id === 'c1').content))[1]
            return calls('r1', 'recall_tool_result', { mem_id: memId, json_path: 'items.26999.sku' })()
          },
          () => new AIMessage('done'),
        ],
        log,
      ),
      tools: [catalogTool],
      checkpointer: saver,
      middleware: [toolMemoryMiddleware({ ledger, offload: true })],
    })
    const out = await agent.invoke({ messages: [new HumanMessage('load it twice')] }, thread('memory-store'))
    expect(out.messages.find((m) => m.tool_call_id === 'r1').content).toBe('"SKU-26999"')
    expect(ledger.stats().evictions).toBeGreaterThan(0)
    expect(ledger.stats().storeHits).toBeGreaterThan(0)
    expect(checkpointBytes(saver)).toBeLessThan(CATALOG.length)
    // The sync twins serve a store in memory.
    const memId = out.messages.find((m) => m.tool_call_id === 'c1').response_metadata.tool_memory.memId
    expect(ledger.fetchSync(memId, { jsonPath: 'items.1.sku', namespace: 'memory-store' })).toBe('"SKU-00001"')
    await ledger.close()
  })

  test('needs a ledger with a store, for the middleware and for the hook and its tools', () => {
    expect(() => toolMemoryMiddleware({ offload: true })).toThrow(/^toolMemoryMiddleware\(options\): offload needs a ledger with a store/)
    expect(() => toolMemoryMiddleware({ offload: true, ledger: new Ledger() })).toThrow(TypeError)
    expect(() => toolMemoryMiddleware({ offload: 'yes', ledger: new Ledger({ store: store() }) })).toThrow(/offload must be a boolean/)
    expect(() => toolMemoryPreModelHook({ offload: true })).toThrow(/^toolMemoryPreModelHook\(options\): offload needs a ledger with a store/)
    expect(() => toolMemoryPreModelHook({ ledger: new Ledger({ store: store() }) }).offloadTools([catalogTool])).toThrow(/^hook.offloadTools\(tools\): needs the hook made with toolMemoryPreModelHook\(\{ offload: true \}\)/)
    expect(() => toolMemoryPreModelHook({ ledger: new Ledger({ store: store() }), offload: true }).offloadTools([{}])).toThrow(/^hook.offloadTools\(tools\): tools\[0\] is not a LangChain tool/)
    expect(typeof toolMemoryMiddleware({ offload: true, ledger: new Ledger({ store: store() }) }).name).toBe('string')
    expect(typeof toolMemoryMiddleware({ offload: true, ledger: new Ledger({ store: 'sqlite::memory:' }) }).name).toBe('string')
  })

  test('checkpoints hold the stub, not the 2 MB result; the model sees the same stubs as without offload', async () => {
    const plain = await runLoop(false)
    const off = await runLoop(true)
    // The state keeps the stub; without offload it keeps the payload.
    const stateResult = (r) => r.out.messages.find((m) => m.tool_call_id === 'c1')
    expect(stateResult(plain).content).toBe(CATALOG)
    expect(textOf(stateResult(off).content)).toMatch(/^\[symfonic.tool_memory v2\]/)
    expect(stateResult(off).response_metadata.tool_memory).toMatchObject({ offloaded: true, compacted: true })
    // Every model call saw exactly the same messages, stubs included.
    expect(off.log.calls).toHaveLength(plain.log.calls.length)
    for (let k = 0; k < off.log.calls.length; k++) {
      expect(off.log.calls[k].messages.map((m) => textOf(m.content))).toEqual(plain.log.calls[k].messages.map((m) => textOf(m.content)))
    }
    // The checkpoints shrink by far more than 20x.
    const ratio = checkpointBytes(plain.saver) / checkpointBytes(off.saver)
    expect(ratio).toBeGreaterThan(20)
  })

  test('after a rebuild on a fresh Ledger over the same store, recall answers and the stub is not compacted again', async () => {
    const file = store()
    const saver = new MemorySaver()
    const first = createAgent({
      model: new ScriptedChatModel([calls('c1', 'get_catalog', {}), () => new AIMessage('loaded')]),
      tools: [catalogTool],
      checkpointer: saver,
      middleware: [toolMemoryMiddleware({ ledger: new Ledger({ store: file }), offload: true })],
    })
    await first.invoke({ messages: [new HumanMessage('load it')] }, thread('t'))
    // A new process: a new Ledger on the same file, a new agent, the same thread.
    const log = { calls: [] }
    let memId
    const second = createAgent({
      model: new ScriptedChatModel(
        [
          (messages) => {
            memId = /mem=(trm_[0-9a-f]+)/.exec(textOf(messages.find((m) => m.tool_call_id === 'c1').content))[1]
            return calls('r1', 'recall_tool_result', { mem_id: memId, json_path: 'items.1234.sku' })()
          },
          () => new AIMessage('done'),
        ],
        log,
      ),
      tools: [catalogTool],
      checkpointer: saver,
      middleware: [toolMemoryMiddleware({ ledger: new Ledger({ store: file }), offload: true })],
    })
    const out = await second.invoke({ messages: [new HumanMessage('what is item 1234?')] }, thread('t'))
    expect(out.messages.find((m) => m.tool_call_id === 'r1').content).toBe('"SKU-01234"')
    // The offloaded stub read back from the checkpoint is recognised: sent as it is.
    const seen = log.calls[0].messages.find((m) => m.tool_call_id === 'c1')
    expect(textOf(seen.content)).toBe(out.messages.find((m) => m.tool_call_id === 'c1').content)
  })

  test('a forged offload marker is not trusted: the result is still compacted', async () => {
    const ledger = new Ledger({ store: store() })
    const { compactToolMessages } = require('../langchain')
    const { ToolMessage } = require('@langchain/core/messages')
    const forged = new ToolMessage({ content: 'x'.repeat(100000), tool_call_id: 'f', name: 't', response_metadata: { tool_memory: { memId: 'trm_000000000000', offloaded: true, compacted: true } } })
    const out = await compactToolMessages([new HumanMessage('go'), calls('f', 't', {})(), forged], ledger, { compactAfter: 'seen' })
    expect(textOf(out[2].content)).toMatch(/\nmem=trm_[0-9a-f]{12} size=/)
  })
})
