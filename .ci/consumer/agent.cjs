'use strict'
// A consumer app's first run: both entry points by `require`, a createAgent
// with both middlewares and a scripted model, a recall through the agent.
const assert = require('node:assert/strict')
const { Ledger, recall } = require('@symfonic/core')
const { toolMemoryMiddleware, toolPaletteMiddleware } = require('@symfonic/core/langchain')
const { createAgent } = require('langchain')
const { BaseChatModel } = require('@langchain/core/language_models/chat_models')
const { AIMessage, HumanMessage } = require('@langchain/core/messages')
const { tool } = require('@langchain/core/tools')
const { z } = require('zod')

class Scripted extends BaseChatModel {
  constructor(steps, seen = []) {
    super({})
    this.steps = steps
    this.seen = seen
  }
  _llmType() {
    return 'scripted'
  }
  bindTools(tools) {
    const m = new Scripted(this.steps, this.seen)
    m.tools = tools
    return m
  }
  async _generate(messages) {
    this.seen.push({ messages, tools: (this.tools || []).map((t) => t.name) })
    const message = this.steps[this.seen.length - 1](messages)
    return { generations: [{ text: '', message }] }
  }
}

const catalog = JSON.stringify({ items: Array.from({ length: 3000 }, (_, i) => ({ sku: `SKU-${i}`, price: i / 4 })) })
const getCatalog = tool(async () => catalog, { name: 'get_catalog', description: 'The catalog.', schema: z.object({}) })
const dropTables = tool(async () => 'dropped', { name: 'drop_tables', description: 'Dangerous.', schema: z.object({}) })
const call = (id, name, args) => new AIMessage({ content: '', tool_calls: [{ id, name, args, type: 'tool_call' }] })

async function main() {
  const ledger = new Ledger()
  const seen = []
  const steps = [
    () => call('c1', 'get_catalog', {}),
    (messages) => {
      const stub = messages.find((m) => m.tool_call_id === 'c1').content
      return call('r1', 'recall_tool_result', { mem_id: /mem=(trm_[0-9a-f]+)/.exec(stub)[1], json_path: 'items.1234.price' })
    },
    () => call('x1', 'drop_tables', {}),
    () => new AIMessage('done'),
  ]
  const agent = createAgent({
    model: new Scripted(steps, seen),
    tools: [getCatalog, dropTables],
    middleware: [toolMemoryMiddleware({ ledger }), toolPaletteMiddleware({ roleTools: { action: ['get_catalog'] } })],
  })
  const out = await agent.invoke({ messages: [new HumanMessage('price of SKU-1234?')] }, { configurable: { thread_id: 't' } })
  const byId = (id) => out.messages.find((m) => m.tool_call_id === id)
  assert.equal(byId('r1').content, '308.5')
  assert.match(byId('x1').content, /not in the tool palette/)
  // The recall tool is bound on every call, from the first: the cached tool block never changes.
  assert.deepEqual(seen[0].tools.sort(), ['get_catalog', 'recall_tool_result'])
  assert.deepEqual(seen[1].tools.sort(), ['get_catalog', 'recall_tool_result'])
  assert.ok(seen[1].messages.find((m) => m.tool_call_id === 'c1').content.startsWith('[symfonic.tool_memory v2]'))
  assert.match(await recall(ledger, 'trm_000000000000'), /^\[tool_memory not found: trm_000000000000 in the default namespace\]/)
  console.log('consumer (require): createAgent with both middlewares: ok')
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
