// A consumer's own jest test of an agent built with @symfonic/core.
const { Ledger, recall } = require('@symfonic/core')
const { compactToolMessages } = require('@symfonic/core/langchain')
const { AIMessage, HumanMessage, ToolMessage } = require('@langchain/core/messages')

test('a seen large tool result is a stub, and recall gives the slice back', async () => {
  const ledger = new Ledger()
  const payload = JSON.stringify({ rows: Array.from({ length: 500 }, (_, i) => ({ id: i, name: `row ${i}` })) })
  const history = [
    new HumanMessage('go'),
    new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'rows', args: {}, type: 'tool_call' }] }),
    new ToolMessage({ content: payload, tool_call_id: 'c1', name: 'rows' }),
    new AIMessage('read them'),
  ]
  const out = await compactToolMessages(history, ledger)
  const stub = out[2].content
  expect(stub.startsWith('[symfonic.tool_memory v2]')).toBe(true)
  const memId = /mem=(trm_[0-9a-f]+)/.exec(stub)[1]
  expect(await recall(ledger, memId, { jsonPath: 'rows.42.name' })).toBe('"row 42"')
})
