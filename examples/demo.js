'use strict'
// `npm run demo`: tool-result memory in a LangChain.js agent, offline.
//
// A catalog tool returns about 2 MB of JSON. Left alone, those 2 MB would be
// re-sent to the model on every call for the rest of the conversation. With
// `toolMemoryMiddleware` the agent's state keeps the full result, but the
// model is shown a short stub with a `trm_…` id, and reads what it needs
// through the `recall_tool_result` tool the middleware adds.
//
// The chat model is scripted (examples/support.js) so this runs without an
// API key; each scripted reply reads the prompt it was actually given, as a
// real model would (it finds the mem id in the stub, parses the recall answer).
// Over three user turns it answers from the stub alone, recalls one item by
// `json_path`, and searches the catalog with `query`.

const { createAgent, createMiddleware, tool, HumanMessage } = require('langchain')
const { MemorySaver } = require('@langchain/langgraph')
const { z } = require('zod')
const { toolMemoryMiddleware } = require('@symfonic/core/langchain')
const { ScriptedChatModel, toolCall, answer, makeCatalog, textOf, promptChars } = require('./support.js')

// --- The tool: an ordinary LangChain tool with a very large answer. Nothing
// about it changes; the middleware decides what the model sees.
const catalogJson = makeCatalog('spring-2026', 1500)
const getCatalog = tool(async ({ season }) => catalogJson.replace('spring-2026', season), {
  name: 'get_catalog',
  description: 'Load a full seasonal product catalog as JSON ({ meta, items[] }).',
  schema: z.object({ season: z.string().describe('e.g. "spring-2026"') }),
})

// --- The model's side of the conversation, one reply per model call.
const lastTool = (prompt) => textOf([...prompt].reverse().find((m) => m._getType() === 'tool'))
// The model learns the id from the stub it was shown: `archived as mem=trm_…`.
const memIdIn = (prompt) => /mem=(trm_[0-9a-f]+)/.exec(prompt.map(textOf).join('\n'))[1]
const lineOf = (text, prefix) => (text.split('\n').find((l) => l.startsWith(prefix)) || '').slice(prefix.length).trim()

const script = [
  // Turn 1. Call the tool; then answer from the stub alone: the result is
  // over `evictChars` (80,000 by default), so the model never gets the body,
  // only its shape (schema, summary) and a 2,000-character head preview.
  () => toolCall('get_catalog', { season: 'spring-2026' }),
  (prompt) => {
    const data = lineOf(lastTool(prompt), 'data:') // "$.items: array[1500] of records, 7 columns: sku:str,title:str,..."
    const t = /^\$\.(\w+): array\[(\d+)\] of records, (\d+) columns: (.*)$/.exec(data)
    const names = (list) => list.split(',').map((c) => c.split(':')[0]).join(', ')
    return answer(t ? `From the stub alone: ${t[2]} ${t[1]} with ${t[3]} fields (${names(t[4])}).` : `From the stub alone: ${data}`)
  },
  // Turn 2. One item, by JSON path: the cheapest exact recall.
  (prompt) => toolCall('recall_tool_result', { mem_id: memIdIn(prompt), json_path: 'items.1234' }),
  (prompt) => {
    const t = lastTool(prompt)
    try {
      const item = JSON.parse(t)
      return answer(`${item.sku} ("${item.title}") costs EUR ${item.price}; ${item.stock} in stock.`)
    } catch {
      return answer(`The recall said: ${t.slice(0, 120)}`)
    }
  },
  // Turn 3. A substring search: windows of text around the first matches.
  (prompt) => toolCall('recall_tool_result', { mem_id: memIdIn(prompt), query: '"stock":0,' }),
  (prompt) => {
    // With many matches the answer's first line says how many there are in all.
    const t = lastTool(prompt)
    const count = /^\[recall: (\d+) matches/.exec(t)
    const skus = [...new Set(t.match(/SKU-\d{5}/g) || [])]
    return answer(`${count ? `${count[1]} items are out of stock; the first: ` : 'Out of stock: '}${skus.join(', ') || 'none found'}.`)
  },
]
const model = new ScriptedChatModel(script)

// --- A one-line middleware to measure what the prompt would have been. It is
// listed first, so it is the outermost wrapper and sees the history before
// toolMemoryMiddleware compacts it (the state itself is never modified).
const withoutSizes = []
const measure = createMiddleware({
  name: 'MeasurePromptBeforeCompaction',
  wrapModelCall: (request, handler) => {
    withoutSizes.push(promptChars(request.messages))
    return handler(request)
  },
})

// --- The agent. toolMemoryMiddleware() needs no options: it registers
// recall_tool_result (bound on every call, so the tool block, the front of
// the cached prompt prefix, never changes), uses
// the thread id as the ledger namespace, and picks its compaction defaults
// from the model's cache style.
const agent = createAgent({
  model,
  tools: [getCatalog],
  systemPrompt: 'You are a catalog analyst. Prefer recalling the slice you need over the full result.',
  middleware: [measure, toolMemoryMiddleware()],
  checkpointer: new MemorySaver(), // state (with the full 2 MB result) persists per thread
})

async function main() {
  const config = { configurable: { thread_id: 'demo-thread' } }
  const questions = [
    'Load the spring-2026 catalog. What is in it?',
    'What does SKU-01234 cost, and how many are in stock?',
    'Which items are out of stock?',
  ]
  const turnOfCall = []
  let state
  for (const [i, q] of questions.entries()) {
    const before = model.calls.length
    state = await agent.invoke({ messages: [new HumanMessage(q)] }, config)
    for (let k = before; k < model.calls.length; k++) turnOfCall.push(i + 1)
  }

  const kb = (chars) => `${(chars / 1000).toFixed(1)} k`
  const did = (reply) =>
    reply.tool_calls && reply.tool_calls.length
      ? reply.tool_calls.map((c) => `calls ${c.name}(${Object.entries(c.args).filter(([k]) => k !== 'mem_id').map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(', ')})`).join('; ')
      : `answers: ${textOf(reply).slice(0, 90)}${textOf(reply).length > 90 ? '…' : ''}`
  const pad = (s, n, left) => (left ? String(s).padStart(n) : String(s).padEnd(n))

  console.log(`@symfonic/core demo: a ${(catalogJson.length / 1e6).toFixed(1)} MB tool result in a LangChain.js agent (offline, scripted model)\n`)
  console.log('The model is scripted: its replies are written in examples/demo.js and computed from the prompt it is sent.')
  console.log('This shows what the model is sent and what recall answers, not what a real model would decide.\n')
  console.log('prompt size = characters of the messages sent (system prompt, history); tool definitions not counted\n')
  console.log(`${pad('call', 4)}  ${pad('turn', 4)}  ${pad('without middleware', 18, true)}  ${pad('with middleware', 15, true)}  the model then`)
  let sumWith = 0
  let sumWithout = 0
  model.calls.forEach((c, i) => {
    const withChars = promptChars(c.messages)
    // `measure` saw the history without the system prompt the agent prepends.
    const without = withoutSizes[i] + promptChars(c.messages.filter((m) => m._getType() === 'system'))
    sumWith += withChars
    sumWithout += without
    console.log(`${pad(i + 1, 4, true)}  ${pad(turnOfCall[i], 4, true)}  ${pad(kb(without) + ' chars', 18, true)}  ${pad(kb(withChars) + ' chars', 15, true)}  ${did(c.reply)}`)
  })
  console.log(`\nover ${model.calls.length} calls the model was sent ${kb(sumWith)} characters instead of ${kb(sumWithout)} (${(sumWithout / sumWith).toFixed(0)}x less)`)
  const bound = model.calls.map((c, i) => (c.tools.includes('recall_tool_result') ? i + 1 : null)).filter((i) => i !== null)
  console.log(
    bound.length === model.calls.length
      ? `recall_tool_result was in the tool list of all ${bound.length} calls (the tool block never changes)`
      : `recall_tool_result was bound in calls ${bound.join(', ') || 'none'}`,
  )

  // The stub the model saw in place of the 2 MB result (long lines trimmed).
  const stub = lastTool(model.calls[1].messages)
  console.log('\nthe stub the model saw instead of the result (call 2):\n')
  console.log(stub.split('\n').map((l) => '  ' + (l.length > 150 ? l.slice(0, 150) + ` … (${l.length} chars)` : l)).join('\n'))

  // What each recall answered.
  console.log('\nrecall answers:')
  model.calls.forEach((c, i) => {
    const prev = i > 0 ? model.calls[i - 1].reply : null
    if (!prev || !prev.tool_calls || !prev.tool_calls.some((t) => t.name === 'recall_tool_result')) return
    const t = lastTool(c.messages)
    const args = prev.tool_calls[0].args
    console.log(`\n  ${args.json_path ? `json_path=${args.json_path}` : `query=${args.query}`} -> ${t.length} chars:`)
    console.log('  ' + (t.length > 400 ? t.slice(0, 400) + ' …' : t).replace(/\n/g, '\n  '))
  })

  // The state (and the checkpoint) still hold the original: nothing was lost.
  const original = state.messages.find((m) => m._getType() === 'tool' && m.name === 'get_catalog')
  console.log(`\nthe agent state still holds the full result: ${textOf(original).length.toLocaleString('en-US')} chars in ToolMessage ${original.tool_call_id}`)
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
