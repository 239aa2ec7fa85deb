'use strict'
// The text reads a model sends through recall_tool_result (pattern, ignore_case,
// context, lines) in a real createAgent loop, checked against a plain-JS grep;
// the configurable answer cap and its continuation; the JS-ledger path.

const { Ledger, memIdFor, recall } = require('..')
const { toolMemoryMiddleware, toolMemoryPreModelHook, createRecallToolResultTool } = require('../langchain')
const { createAgent } = require('langchain')
const { tool } = require('@langchain/core/tools')
const { AIMessage, HumanMessage } = require('@langchain/core/messages')
const { z } = require('zod')
const { ScriptedChatModel } = require('./support/scripted-model.js')

// 3,000 CRLF lines, every 17th an ERROR, with non-ASCII text: ~170,000 chars.
const LOG = Array.from({ length: 3000 }, (_, i) => `2024-05-01T10:${String(i % 60).padStart(2, '0')} ${i % 17 === 0 ? 'ERROR' : 'INFO'} worker ${i % 7} café ${i + 1}`).join('\r\n') + '\r\n'

// `grep -n [-i] [-C n] pattern`, the obvious way (the reference).
function grep(text, re, context = 0, first = 1, last = Infinity) {
  const lines = text.split('\n')
  if (text.endsWith('\n')) lines.pop()
  const shown = (l) => l.replace(/\r$/, '')
  const hit = lines.map((l, i) => i + 1 >= first && i + 1 <= last && re.test(shown(l)))
  const out = []
  let prev = 0
  for (let i = 0; i < lines.length; i++) {
    const near = hit.slice(Math.max(0, i - context), i + context + 1).some(Boolean)
    if (!near || i + 1 < first || i + 1 > last) continue
    if (context > 0 && prev > 0 && i + 1 > prev + 1) out.push('--')
    out.push(`${i + 1}${hit[i] ? ':' : '-'}${shown(lines[i])}`)
    prev = i + 1
  }
  return { body: out.join('\n'), total: hit.filter(Boolean).length }
}

const logTool = tool(async () => LOG, { name: 'read_log', description: 'The service log.', schema: z.object({}) })
const r = (id, args) => ({ id, name: 'recall_tool_result', args, type: 'tool_call' })
const answerOf = (messages, id) => messages.find((m) => m.type === 'tool' && m.tool_call_id === id).content

test('pattern, ignore_case, context and lines through an agent answer as grep does, and a capped answer continues', async () => {
  const ledger = new Ledger()
  const memId = memIdFor('log', LOG)
  let next
  const script = [
    () => new AIMessage({ content: '', tool_calls: [{ id: 'log', name: 'read_log', args: {}, type: 'tool_call' }] }),
    () =>
      new AIMessage({
        content: '',
        tool_calls: [
          r('p', { mem_id: memId, pattern: 'ERROR worker 5 café 1[0-4]\\d\\d$', context: 1 }),
          r('pi', { mem_id: memId, pattern: 'error worker 6', ignore_case: 'true', lines: '100-400' }),
          r('l', { mem_id: memId, lines: [10, 12] }),
          r('big', { mem_id: memId, pattern: 'ERROR' }),
          r('bad', { mem_id: memId, pattern: 'worker [' }),
          r('badlines', { mem_id: memId, lines: 'ten to twenty' }),
          r('badcase', { mem_id: memId, pattern: 'x', ignore_case: 'maybe' }),
        ],
      }),
    (messages) => {
      next = Number(/pass offset=(\d+) /.exec(answerOf(messages, 'big'))[1])
      return new AIMessage({ content: '', tool_calls: [r('more', { mem_id: memId, pattern: 'ERROR', offset: next })] })
    },
    () => new AIMessage('done'),
  ]
  const agent = createAgent({
    model: new ScriptedChatModel(script),
    tools: [logTool],
    middleware: [toolMemoryMiddleware({ ledger, evictChars: 50_000, recallMaxChars: 2000 })],
  })
  const { messages } = await agent.invoke({ messages: [new HumanMessage('errors?')] }, { configurable: { thread_id: 'ops' } })

  const p = grep(LOG, /ERROR worker 5 café 1[0-4]\d\d$/, 1)
  expect(p.total).toBeGreaterThan(1)
  expect(answerOf(messages, 'p')).toBe(`[recall: ${p.total} matching lines for pattern 'ERROR worker 5 café 1[0-4]\\d\\d$' in ${memId}]\n${p.body}`)
  const pi = grep(LOG, /error worker 6/i, 0, 100, 400)
  expect(answerOf(messages, 'pi')).toBe(`[recall: ${pi.total} matching lines for pattern 'error worker 6' (ignore_case) in ${memId} lines 100-400]\n${pi.body}`)
  // Numbered as grep -n numbers, the \r of the CRLF not shown.
  expect(answerOf(messages, 'l')).toBe(LOG.split('\r\n').slice(9, 12).map((l, i) => `${10 + i}:${l}`).join('\n'))

  // Capped at 2,000: the count of every matching line, and how to get the rest.
  const big = answerOf(messages, 'big')
  const all = grep(LOG, /ERROR/)
  expect(Array.from(big).length).toBeLessThanOrEqual(2000)
  const shownLines = big.split('\n').slice(1)
  expect(big.split('\n')[0]).toBe(`[recall: ${all.total} matching lines for pattern 'ERROR' in ${memId}; ${shownLines.length} shown; for the rest pass offset=${next} with the same pattern]`)
  expect(all.body.startsWith(shownLines.join('\n'))).toBe(true)
  // The offset is where the next matching line starts (code points).
  const nextLine = Number(all.body.split('\n')[shownLines.length].split(':')[0])
  expect(next).toBe(Array.from(LOG.split('\r\n').slice(0, nextLine - 1).join('\r\n') + '\r\n').length)
  // Following it shows the next matching lines, none twice.
  const more = answerOf(messages, 'more').split('\n').slice(1)
  expect(answerOf(messages, 'more').split('\n')[0]).toMatch(new RegExp(`^\\[recall: ${all.total} matching lines for pattern 'ERROR' in ${memId}; from offset=${next}: \\d+ shown; for the rest pass offset=\\d+ with the same pattern\\]$`))
  expect(all.body.split('\n').slice(shownLines.length, shownLines.length + more.length)).toEqual(more)

  expect(answerOf(messages, 'bad')).toBe("[recall: pattern 'worker [' does not compile: unclosed character class at character 8; for a literal string use query, or escape the special characters with \\]")
  expect(answerOf(messages, 'badlines')).toBe(`[recall: lines 'ten to twenty' cannot be read: it is not a line range; write "120-180", "120" or "120-" (1-based, inclusive)]`)
  expect(answerOf(messages, 'badcase')).toBe('[tool_memory error: ignore_case must be true or false, got "maybe"]')
})

test('recallMaxChars is checked, and a ledger written in JS receives the text reads', async () => {
  expect(() => toolMemoryMiddleware({ recallMaxChars: -1 })).toThrow(
    new TypeError('toolMemoryMiddleware(options): recallMaxChars must be a whole number of characters, at least 1 (got number -1)'),
  )
  expect(() => toolMemoryMiddleware({ recallMaxchars: 10 })).toThrow(/did you mean "recallMaxChars"\?/)
  // The hook's tool answers within the cap, and a cut answer names it.
  const hook = toolMemoryPreModelHook({ recallMaxChars: 8000 })
  const h = await hook.ledger.record({ toolCallId: 'k', toolName: 't', content: 'y'.repeat(20_000), namespace: 'n' })
  const capped = await hook.tool.invoke({ mem_id: h.memId, format: 'full' }, { configurable: { thread_id: 'n' } })
  expect(Array.from(capped).length).toBe(8000)
  expect(capped).toContain('truncated at 8000 chars')
  const seen = []
  const jsLedger = { fetch: (memId, o) => (seen.push(o), 'x'.repeat(500)) }
  const out = await recall(jsLedger, 'trm_js', { pattern: 'a+', ignoreCase: true, context: 2, lines: '5-', maxOutputChars: 300 })
  expect(seen[0]).toMatchObject({ format: 'full', pattern: 'a+', ignoreCase: true, context: 2, lines: '5-' })
  // Not a contiguous part: cut without an offset.
  expect(out.endsWith('retains full data in the ledger]')).toBe(true)
  const t = createRecallToolResultTool(jsLedger, { maxOutputChars: 100 })
  expect(Array.from(await t.invoke({ mem_id: 'trm_js', lines: 7 })).length).toBeLessThanOrEqual(100)
  expect(seen[1]).toMatchObject({ lines: '7' })
})
