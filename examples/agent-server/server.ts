// An agent server on node:http. One ledger over a SQLite file is shared by
// every request: each conversation (thread) records its tool results under
// its own namespace, its thread id, and may run concurrently with others.
//
//   POST /threads/<threadId>/messages   { "content": "..." }  ->  { "reply": "..." }
//   GET  /health                                              ->  { "ok": true, "ledger": { ...stats } }

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { MemorySaver, type BaseCheckpointSaver } from '@langchain/langgraph'
import type { BaseChatModel } from '@langchain/core/language_models/chat_models'
import { Ledger } from '@symfonic/core'
import { buildAgent } from './agent'

export interface ServerOptions {
  model: BaseChatModel | string
  /** The SQLite file of the ledger, e.g. './ledger.db'. */
  ledgerFile: string
  /** Default: a MemorySaver (use a persistent checkpointer in production). */
  checkpointer?: BaseCheckpointSaver
  /** Default 0: any free port. */
  port?: number
}

export interface RunningServer {
  url: string
  ledger: Ledger
  /** Stops accepting requests, lets those in flight end, then closes the ledger (its SQLite file). */
  close(): Promise<void>
}

async function body(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}')
}

function send(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(value))
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) return content.map((b) => (typeof b === 'string' ? b : (b as { text?: string }).text ?? '')).join('')
  return ''
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  // Opened before the server listens: a file that cannot be opened fails the start, not a request.
  const ledger = await Ledger.open({ store: `sqlite:${options.ledgerFile}` })
  const agent = buildAgent({ model: options.model, ledger, checkpointer: options.checkpointer ?? new MemorySaver() })

  const server: Server = createServer(async (req, res) => {
    try {
      const route = /^\/threads\/([\w.-]{1,200})\/messages$/.exec(req.url ?? '')
      if (req.method === 'POST' && route) {
        const input = await body(req)
        const content = (input as { content?: unknown }).content
        if (typeof content !== 'string' || content === '') return send(res, 400, { error: 'content must be a non-empty string' })
        const result = await agent.invoke({ messages: [{ role: 'user', content }] }, { configurable: { thread_id: route[1] } })
        return send(res, 200, { reply: textOf(result.messages.at(-1)?.content) })
      }
      if (req.method === 'GET' && req.url === '/health') return send(res, 200, { ok: true, ledger: ledger.stats() })
      send(res, 404, { error: 'not found' })
    } catch (error) {
      send(res, 500, { error: error instanceof Error ? error.message : String(error) })
    }
  })
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    ledger,
    close: async () => {
      await new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve())))
      await ledger.close()
    },
  }
}
