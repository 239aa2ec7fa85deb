'use strict'
// Regression rows for inputs that once grew costs super-linearly (issue 8):
// each is measured at n and 3n in the same run, and the ratio says whether the
// cost stays linear (about 3x) or not (about 9x for quadratic).
//   - the first recall of an unknown id, with n messages in the run state;
//   - a case-insensitive query on a non-ASCII payload of n MB (and the memory
//     it takes beyond the payload, which must not be a copy of it);
//   - applyPalette with n names in `alwaysInclude` (see also the palette suite).
// Run: npm run bench -- hardening

const { Ledger, applyPalette } = require('../..')
const { createRecallToolResultTool } = require('../../langchain')
const { ToolMessage } = require('@langchain/core/messages')
const { fmtMs, table, timed } = require('../util.js')


async function firstUnknownRecall(n) {
  // New message objects for each run (built before the clock starts): the
  // cost in a fresh process after a restart, when nothing is cached yet.
  const runs = 3
  const states = Array.from({ length: runs }, (_, run) => ({
    messages: Array.from({ length: n }, (_, i) => new ToolMessage({ content: `result ${run} ${i} ` + 'x'.repeat(200), tool_call_id: `c${i}`, name: 't' })),
  }))
  const recallTool = createRecallToolResultTool(new Ledger())
  return timed(runs, (run) => recallTool.invoke({ mem_id: 'trm_000000000000' }, { configurable: { thread_id: '' }, state: states[run] }))
}

async function foldedQuery(mb) {
  const ledger = new Ledger({ maxBytes: 1024 * 1024 * 1024 })
  const line = 'Ünïcödé ÉCOLE ligne de journal numéro ' // non-ASCII: the case-insensitive path folds per char
  const text = line.repeat(Math.ceil((mb * 1e6) / Buffer.byteLength(line))).slice(0, mb * 1e6)
  const { memId } = await ledger.record({ toolCallId: 'q', toolName: 't', content: text })
  global.gc?.()
  const before = process.memoryUsage().rss
  let peak = before
  const ms = await timed(5, async () => {
    await ledger.fetch(memId, { query: 'école introuvable' }) // no exact match: the folded search scans everything
    peak = Math.max(peak, process.memoryUsage().rss)
  })
  return { ms, extra: (peak - before) / (mb * 1e6) }
}

async function alwaysIncluded(n) {
  const tools = Array.from({ length: n }, (_, i) => ({ name: `t${i}` }))
  const alwaysInclude = tools.map((t) => t.name)
  const resolver = { resolve: (_s, _r, all) => all.slice(0, 10) }
  await applyPalette({ state: {}, role: 'action', allTools: tools, alwaysInclude, resolver })
  return timed(7, () => applyPalette({ state: {}, role: 'action', allTools: tools, alwaysInclude, resolver }))
}

async function main() {
  const rows = []
  const verdict = (a, b) => {
    const g = b / a
    return `${g.toFixed(1)}x (${g < 5 ? 'linear' : 'NOT linear'})`
  }
  const r1 = await firstUnknownRecall(20000)
  const r3 = await firstUnknownRecall(60000)
  rows.push(['first recall of an unknown id, 20,000 / 60,000 messages in state', `${fmtMs(r1)} / ${fmtMs(r3)}`, verdict(r1, r3), 'one id per message, hashed once per message object'])
  const q1 = await foldedQuery(2)
  const q3 = await foldedQuery(6)
  rows.push([
    'case-insensitive non-ASCII query, 2 MB / 6 MB payload',
    `${fmtMs(q1.ms)} / ${fmtMs(q3.ms)}`,
    verdict(q1.ms, q3.ms),
    `RSS growth ${q1.extra.toFixed(2)} / ${q3.extra.toFixed(2)} bytes per payload byte (a folded copy would be about 1)`,
  ])
  const p1 = await alwaysIncluded(10000)
  const p3 = await alwaysIncluded(30000)
  rows.push(['applyPalette, 10,000 / 30,000 names in alwaysInclude', `${fmtMs(p1)} / ${fmtMs(p3)}`, verdict(p1, p3), 'was 178 ms / 980 ms (quadratic)'])
  console.log('## Hardening: costs that must stay linear\n')
  console.log(table(['input', 'median (n / 3n)', '3n costs', 'note'], rows))
  console.log()
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
