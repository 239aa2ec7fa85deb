'use strict'
// Offload mode: what the checkpoints of a 12-call createAgent loop with one
// 2 MB tool result weigh (MemorySaver, serialised checkpoints and pending
// writes), without compaction, with toolMemoryMiddleware, and with offload
// over an SQLite store. Target: offload <= 1/20 of today's.
// Run: npm run bench -- offload

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { Ledger } = require('../..')
const { toolMemoryMiddleware } = require('../../langchain')
const { createAgent } = require('langchain')
const { MemorySaver } = require('@langchain/langgraph')
const { BaseChatModel } = require('@langchain/core/language_models/chat_models')
const { AIMessage, HumanMessage } = require('@langchain/core/messages')
const { tool } = require('@langchain/core/tools')
const { z } = require('zod')
const { table, figure } = require('../util.js')

const CATALOG = JSON.stringify({ items: Array.from({ length: 27000 }, (_, i) => ({ sku: `SKU-${String(i).padStart(5, '0')}`, price: (i * 7) % 1000, title: `item ${i} with a long enough title` })) })

class Scripted extends BaseChatModel {
  constructor(steps, state = { n: 0 }) {
    super({})
    this.steps = steps
    this.state = state
  }
  _llmType() {
    return 'scripted'
  }
  bindTools() {
    return new Scripted(this.steps, this.state)
  }
  async _generate() {
    const message = this.steps[this.state.n++]()
    return { generations: [{ text: '', message }] }
  }
}

function bytesOf(saver) {
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

async function run(middleware) {
  const steps = [() => new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'get_catalog', args: {}, type: 'tool_call' }] })]
  for (let i = 0; i < 10; i++) steps.push(() => new AIMessage({ content: '', tool_calls: [{ id: `n${i}`, name: 'note', args: { i }, type: 'tool_call' }] }))
  steps.push(() => new AIMessage('done'))
  const saver = new MemorySaver()
  const agent = createAgent({
    model: new Scripted(steps),
    tools: [
      tool(async () => CATALOG, { name: 'get_catalog', description: 'The catalog.', schema: z.object({}) }),
      tool(async ({ i }) => `note ${i}`, { name: 'note', description: 'A note.', schema: z.object({ i: z.number() }) }),
    ],
    checkpointer: saver,
    middleware,
  })
  const t0 = performance.now()
  await agent.invoke({ messages: [new HumanMessage('go')] }, { configurable: { thread_id: 't' } })
  return { bytes: bytesOf(saver), ms: performance.now() - t0 }
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'symfonic-offload-bench-'))
  try {
    const none = await run([])
    const memory = await run([toolMemoryMiddleware()])
    const offload = await run([toolMemoryMiddleware({ ledger: new Ledger({ store: `sqlite:${path.join(dir, 'l.db')}` }), offload: true })])
    const mb = (b) => `${(b / 1e6).toFixed(2)} MB`
    console.log(`## Offload mode (${(CATALOG.length / 1e6).toFixed(1)} MB result, 12 model calls, MemorySaver)\n`)
    figure('offload.checkpoints_without', mb(none.bytes))
    figure('offload.checkpoints_with', mb(offload.bytes))
    console.log(
      figure(
        'offload.table',
        table(
          ['strategy', 'checkpoints + writes', 'vs no middleware', 'run time'],
          [
            ['no middleware', mb(none.bytes), '1', `${none.ms.toFixed(0)} ms`],
            ['toolMemoryMiddleware()', mb(memory.bytes), `1/${(none.bytes / memory.bytes).toFixed(1)}`, `${memory.ms.toFixed(0)} ms`],
            ['toolMemoryMiddleware({ offload: true }), SQLite store', mb(offload.bytes), `1/${(none.bytes / offload.bytes).toFixed(0)}`, `${offload.ms.toFixed(0)} ms`],
          ],
        ),
      ),
    )
    const ok = none.bytes / offload.bytes >= 20
    console.log(`\nTarget (offload <= 1/20 of today's checkpoints): ${ok ? 'met' : 'NOT met'}.\n`)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
