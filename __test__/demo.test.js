'use strict'
// `npm run demo` prints what it proves and nothing that reads like a failure:
// the stub in place of the 2 MB result, the recall tool bound on every call,
// the answers read from the stub and the recalls, and a
// plain label that the model is scripted.

const path = require('node:path')
const { execFileSync } = require('node:child_process')
const { makeCatalog } = require('../examples/support.js')

const out = execFileSync(process.execPath, [path.join(__dirname, '..', 'examples', 'demo.js')], { encoding: 'utf8' })
const lines = out.split('\n')

test('says plainly that the model is scripted, and what that does not show', () => {
  expect(lines[0]).toBe('@symfonic/core demo: a 2.0 MB tool result in a LangChain.js agent (offline, scripted model)')
  expect(out).toContain('The model is scripted: its replies are written in examples/demo.js and computed from the prompt it is sent.')
  expect(out).toContain('not what a real model would decide')
})

test('nothing reads like a failure', () => {
  for (const line of lines) expect(line).not.toMatch(/\b(false|undefined|null|NaN|error|fail(ed|ure)?)\b/i)
})

test('the recall tool is bound on every call, so the tool block never changes', () => {
  expect(out).toContain('recall_tool_result was in the tool list of all 6 calls (the tool block never changes)\n')
})

test('each answer is what the data says', () => {
  const items = JSON.parse(makeCatalog('spring-2026', 1500)).items
  const sku = items[1234]
  const outOfStock = items.filter((i) => i.stock === 0).map((i) => i.sku)
  expect(outOfStock.length).toBeGreaterThan(0)
  expect(out).toMatch(/answers: From the stub alone: 1500 items with 7 fields \(sku, title, category, price, stock, tags, d/)
  expect(out).toContain(`answers: SKU-01234 ("${sku.title}") costs EUR ${sku.price}; ${sku.stock} in stock.`)
  expect(out).toContain(`answers: Out of stock: ${outOfStock.join(', ')}.`)
})

test('the model saw a stub, the state kept the whole result', () => {
  expect(out).toMatch(/\n  \[symfonic\.tool_memory v2\]\n  tool=get_catalog call_id=call_1\n  mem=trm_[0-9a-f]{12} size=1999307 chars\n/)
  expect(out).toContain('the agent state still holds the full result: 1,999,307 chars in ToolMessage call_1')
  const m = /over 6 calls the model was sent ([\d.]+) k characters instead of ([\d.]+) k \((\d+)x less\)/.exec(out)
  expect(m).not.toBeNull()
  expect(Number(m[2]) / Number(m[1])).toBeGreaterThan(100)
})
