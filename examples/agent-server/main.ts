// Start the example server with a real model (its provider package installed,
// e.g. `npm install @langchain/anthropic`, and its API key in the environment):
//
//   npx tsc -p examples/agent-server && MODEL=anthropic:claude-sonnet-4-5 node examples/agent-server/dist/main.js
//   curl -s localhost:3000/threads/t1/messages -d '{"content":"cheapest in garden?"}'

import { startServer } from './server'

async function main(): Promise<void> {
  const server = await startServer({
    model: process.env.MODEL ?? 'anthropic:claude-sonnet-4-5',
    ledgerFile: process.env.LEDGER_FILE ?? './ledger.db',
    port: Number(process.env.PORT ?? 3000),
  })
  console.log(`listening on ${server.url}`)
  process.once('SIGINT', () => void server.close())
}

void main()
