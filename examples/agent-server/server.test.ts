// The example server end to end, offline: a scripted fake model, two
// conversations at once over HTTP, one SQLite-backed ledger shared by the
// requests, both middlewares, then a restart of the server.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MemorySaver } from '@langchain/langgraph'
import { memIdFor } from '@symfonic/core'
import { startServer, type RunningServer } from './server'
import { catalogOf, deleted } from './agent'
import { scriptedModel, text } from './scripted-model'

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
