// The example server end to end, offline: a scripted fake model, two
// conversations at once over HTTP, one SQLite-backed ledger shared by the
// requests, both middlewares, then a restart of the server.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fakeModel } from 'langchain'
import { AIMessage, type BaseMessage } from '@langchain/core/messages'
import { MemorySaver } from '@langchain/langgraph'
import { memIdFor } from '@symfonic/core'
import { startServer, type RunningServer } from './server'
import { catalogOf, deleted } from './agent'

// The id a stub (`mem=trm_…`) or a one-line note (`mem_id='trm_…'`) names.
const MEM_ID = /mem(?:_id)?=['"]?(trm_[0-9a-f]{12})/
const text = (m: BaseMessage): string => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))

// The model reads its prompt as a real one would: a question -> load the
// catalog; a catalog stub -> recall the cheapest item by json_path; a recall
// answer -> reply. Every reply is a function of the messages alone, so two
// conversations may take turns in any order.
function reply(messages: BaseMessage[]): AIMessage {
  const last = messages[messages.length - 1]
  const call = (name: string, args: Record<string, unknown>) =>
    new AIMessage({ content: '', tool_calls: [{ id: `call_${messages.length}_${name}`, name, args, type: 'tool_call' }] })
  if (last.type === 'human') {
    const question = text(last)
    if (question.includes('delete')) return call('delete_repo', { repo: 'prod' })
    const stub = messages.map(text).find((t) => MEM_ID.test(t))
    const second = question.includes('second')
    if (stub && second) return call('recall_tool_result', { mem_id: MEM_ID.exec(stub)![1], json_path: 'items[1]' })
    return call('get_catalog', { category: /in (\w+)/.exec(question)![1] })
  }
  if (last.type === 'tool' && last.name === 'get_catalog') {
    return call('recall_tool_result', { mem_id: MEM_ID.exec(text(last))![1], json_path: 'items[0]' })
  }
  if (last.type === 'tool' && last.name === 'recall_tool_result') {
    const item = JSON.parse(text(last)) as { sku: string; price: number }
    return new AIMessage(`${item.sku} at $${item.price}`)
  }
  return new AIMessage(`the tool said: ${text(last)}`)
}

function scriptedModel(calls: number) {
  const model = fakeModel()
  for (let i = 0; i < calls; i++) model.respond(reply)
  return model
}

async function ask(server: RunningServer, thread: string, content: string): Promise<string> {
  const res = await fetch(`${server.url}/threads/${thread}/messages`, { method: 'POST', body: JSON.stringify({ content }) })
  const answer = (await res.json()) as { reply?: string; error?: string }
  if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${answer.error}`)
  return answer.reply ?? ''
}

describe('the example agent server', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-server-'))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  test('two concurrent threads, one SQLite ledger, both middlewares, and a restart', async () => {
    const ledgerFile = join(dir, 'ledger.db')
    const checkpointer = new MemorySaver() // stands for a persistent checkpointer across the restart
    const model = scriptedModel(12)
    const server = await startServer({ model, ledgerFile, checkpointer })
    try {
      // Two conversations at once.
      const [garden, kitchen] = await Promise.all([ask(server, 'alice', 'cheapest in garden?'), ask(server, 'bob', 'cheapest in kitchen?')])
      expect(garden).toBe('GAR-0000 at $4.99')
      expect(kitchen).toBe('KIT-0000 at $4.99')

      // The model never saw a catalog (105,613 characters): stubs, then the recalled item.
      const seen = model.calls.flatMap((c) => c.messages.map(text))
      expect(catalogOf('garden', 1500).length).toBe(105613)
      expect(new Set(seen.filter((t) => t.startsWith('[symfonic.tool_memory v2]'))).size).toBe(2) // one per thread
      expect(Math.max(...seen.map((t) => t.length))).toBeLessThan(3000)

      // Each thread's result lives in its own namespace of the shared ledger.
      const gardenId = memIdFor('call_1_get_catalog', catalogOf('garden', 1500))
      expect((await server.ledger.handle(gardenId, { namespace: 'alice' }))?.toolName).toBe('get_catalog')
      expect(await server.ledger.handle(gardenId, { namespace: 'bob' })).toBeNull()

      // The palette hides delete_repo from the support role, and the guard refuses it.
      expect(await ask(server, 'bob', 'please delete the repo')).toMatch(/^the tool said: \[tool_palette: 'delete_repo' is not in the tool palette for role 'support'; it was not run/)
      expect(deleted).toEqual([])
    } finally {
      await server.close()
    }
    // Closing the server closed its ledger (and released the SQLite file).
    await expect(server.ledger.has('trm_000000000000')).rejects.toMatchObject({ code: 'ERR_SYMFONIC_CLOSED' })

    // The checkpoints hold stubs, not catalogs (offload).
    const state = await checkpointer.getTuple({ configurable: { thread_id: 'alice' } })
    expect(JSON.stringify(state?.checkpoint).length).toBeLessThan(20000)

    // A new server process: a fresh ledger over the same file answers the
    // recall of a result recorded before the restart, from SQLite.
    const restarted = await startServer({ model: scriptedModel(4), ledgerFile, checkpointer })
    try {
      expect(await ask(restarted, 'alice', 'and the second cheapest?')).toBe('GAR-0001 at $5.74')
      expect(restarted.ledger.stats().storeHits).toBeGreaterThan(0)
    } finally {
      await restarted.close()
    }
  })
})
