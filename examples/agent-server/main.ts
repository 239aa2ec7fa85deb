// Starts the example server (README.md beside this file):
//
//   npx tsc -p examples/agent-server/tsconfig.build.json
//   MODEL=scripted node examples/agent-server/dist/main.js
//
// MODEL: a model id such as 'anthropic:claude-sonnet-4-5' (its provider
// package installed and its API key in the environment), or 'scripted' for
// the offline scripted model. PORT (default 3000; 0: any free port) and
// LEDGER_FILE (default dist/ledger.db, beside this file once built: git
// ignores dist/, so a clone stays clean).

import { join } from 'node:path'
import { startServer } from './server'
import { scriptedModel } from './scripted-model'

async function main(): Promise<void> {
  const model = process.env.MODEL ?? 'anthropic:claude-sonnet-4-5'
  const server = await startServer({
    model: model === 'scripted' ? scriptedModel() : model,
    ledgerFile: process.env.LEDGER_FILE ?? join(__dirname, 'ledger.db'),
    port: Number(process.env.PORT ?? 3000),
  })
  console.log(`listening on ${server.url} (model ${model})`)
  // Requests in flight end, then the ledger's SQLite file is closed.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void server.close())
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
})
