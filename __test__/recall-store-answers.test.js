'use strict'
// needs: redis-server
// Store answers the model reads are true and discreet: an entry gone from a
// Redis that does not evict was deleted (not "evicted"), and a store that
// fails or hangs is reported to the model without its URL, host, port or
// error text; those reach the app through the middleware's logger and
// onEvent (`storeFailed`), and through `fetch`. Real redis-server processes.

const { Ledger, recall } = require('..')
const { toolMemoryMiddleware } = require('../langchain')
const { startRedis } = require('./support/redis-server.js')

const servers = []
const ledgers = []
afterAll(async () => {
  await Promise.all(ledgers.map((l) => l.close().catch(() => {})))
  await Promise.all(servers.map((s) => s.stop()))
})

async function redis(args) {
  const s = await startRedis({ args })
  servers.push(s)
  return s
}

async function open(options) {
  const l = await Ledger.open(options)
  ledgers.push(l)
  return l
}

// Nothing a model reads names where the store is.
function discreet(answer, server) {
  expect(answer).not.toContain('redis://')
  expect(answer).not.toContain('127.0.0.1')
  expect(answer).not.toContain(String(server.port))
}

test('a key deleted by another client on a noeviction server is said to be deleted, not evicted', async () => {
  const server = await redis(['--maxmemory-policy', 'noeviction'])
  const writer = await open({ store: server.url })
  const h = await writer.record({ toolCallId: 'gone', toolName: 't', content: 'soon deleted', namespace: 'ns' })
  expect(await server.command(`DEL symfonic:{ns}:${h.memId}`)).toBe(':1\r\n')
  const reader = await open({ store: server.url, maxBytes: 1 })
  const answer = await recall(reader, h.memId, { namespace: 'ns' })
  expect(answer).toBe(
    `[tool_memory error: ${h.memId} is gone from the store before its expiry: something other than this ledger deleted it (the store does not evict entries); it can no longer be recalled]`,
  )
  expect(answer).not.toMatch(/evicted/)
  discreet(answer, server)
})

test('a hung Redis: the model reads that the store did not answer; the app gets the detail through logger and onEvent', async () => {
  const server = await redis()
  const writer = await open({ store: server.url })
  const h = await writer.record({ toolCallId: 'hung', toolName: 't', content: 'x'.repeat(5000), namespace: 'thread-1' })
  const reader = await open({ store: server.url, maxBytes: 1, timeoutMs: 400 })
  const events = []
  const warnings = []
  const middleware = toolMemoryMiddleware({ ledger: reader, onEvent: (e) => events.push(e), logger: { warn: (m) => warnings.push(m) } })
  const tool = middleware.tools[0]
  server.pause()
  try {
    const answer = await tool.invoke({ mem_id: h.memId, format: 'full' }, { configurable: { thread_id: 'thread-1' } })
    expect(answer).toBe(`[tool_memory error: the store did not answer in time for ${h.memId}; try again later]`)
    discreet(answer, server)
    const failed = events.filter((e) => e.type === 'storeFailed')
    expect(failed).toHaveLength(1)
    expect(failed[0]).toMatchObject({ memId: h.memId, namespace: 'thread-1', code: 'ERR_SYMFONIC_STORE_TIMEOUT' })
    expect(failed[0].error).toContain(server.url)
    expect(warnings.some((w) => w.includes(server.url) && w.includes(h.memId))).toBe(true)
    expect(events.find((e) => e.type === 'recalled')).toMatchObject({ memId: h.memId, error: true })
    // The app's own fetch keeps the store's words.
    expect(await reader.fetch(h.memId, { namespace: 'thread-1' })).toContain(`store read failed for ${h.memId}: store get failed: ${server.url}: no answer within 400 ms`)
  } finally {
    server.resume()
  }
}, 20000)

test('a hung Redis at compaction: the placeholder the model reads names no store, the app gets the detail', async () => {
  const { compactToolMessages } = require('../langchain')
  const { AIMessage, ToolMessage, HumanMessage } = require('@langchain/core/messages')
  const server = await redis([])
  const ledger = await open({ store: server.url, timeoutMs: 400 })
  const messages = [
    new HumanMessage('hi'),
    new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'read', args: {} }] }),
    new ToolMessage({ content: 'x'.repeat(200_000), tool_call_id: 'c1', name: 'read' }),
  ]
  const warnings = []
  const events = []
  server.pause()
  let out
  try {
    out = await compactToolMessages(messages, ledger, { logger: { warn: (m) => warnings.push(m) }, onEvent: (e) => events.push(e) })
  } finally {
    server.resume()
  }
  const seen = String(out[2].content)
  expect(seen).toMatch(/^\[symfonic.tool_memory v1\] result not archived/)
  expect(seen).toContain('could not be stored for recall (the store did not answer).')
  discreet(seen, server)
  expect(seen).not.toContain('ERR_SYMFONIC')
  expect(seen).not.toContain('no answer within')
  // The detail reaches the app.
  expect(warnings.join('\n')).toContain(server.url)
  expect(events.find((e) => e.type === 'recordFailed').error).toMatch(/^ERR_SYMFONIC_STORE_TIMEOUT: .*no answer within 400 ms/)
})
