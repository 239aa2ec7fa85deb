'use strict'
// JSONPath against the plain-JavaScript way, in one run: on a 5 MB catalog
// of items (benchmark/catalogs.js's ASCII rows, each with a `stock`), the
// fetch of a filter (`$.items[?@.stock==0].sku`), of a descendant segment
// (`$..sku`) and of singular paths (an index, a JSON Pointer) against
// JSON.parse plus a JS filter or walk plus JSON.stringify of the answer, the
// two timed in turns; and the JS thread's share of the async fetch (the rest
// runs on the libuv pool). With SYMFONIC_REAL_PAYLOADS set to the folder
// that /work/shared/real-payloads/collect.sh filled, the same on real
// payloads (GitHub's OpenAPI description, emoji data, SPDX licenses, MDN).
// Run: npm run bench -- jsonpath   (the release build: npm run build)

const fs = require('node:fs')
const path = require('node:path')
const { performance } = require('node:perf_hooks')
const { Ledger } = require('../..')
const { catalog } = require('../catalogs.js')
const { median, fmtMs, table } = require('../util.js')

const N = 21

const ratio = (x) => `${x < 0.1 ? x.toFixed(3) : x < 10 ? x.toFixed(2) : x.toFixed(1)}×`
const mb = (s) => (Buffer.byteLength(s) / 2 ** 20).toFixed(1)

// The catalog's rows as `items`, each with the stock of its first variant
// (0 for one item in 40).
function items() {
  const { meta, rows } = JSON.parse(catalog('ascii'))
  return JSON.stringify({ meta, items: rows.map((r) => ({ ...r, stock: r.variants[0].stock })) })
}

// Every value of member `key`, in RFC 9535's descendant order (a node's own
// members before its descendants').
function descendants(value, key, out = []) {
  if (Array.isArray(value)) {
    for (const v of value) descendants(v, key, out)
  } else if (value !== null && typeof value === 'object') {
    if (Object.hasOwn(value, key)) out.push(value[key])
    for (const v of Object.values(value)) descendants(v, key, out)
  }
  return out
}

// One awaited call of `ours`: its total time and its JS-thread time (from
// the call until it returns its Promise), in ms.
async function call(ours) {
  const t0 = performance.now()
  const p = ours()
  const t1 = performance.now()
  await p
  return [performance.now() - t0, t1 - t0]
}

// Median times of `ours` (async) and `js` (sync), in turns, and the median
// JS-thread time of `ours`. The garbage of each turn is collected untimed,
// so neither side pays for the other's.
async function race(ours, js, n = N) {
  const a = []
  const b = []
  const thread = []
  for (let i = 0; i < n; i++) {
    global.gc?.()
    const [total, onThread] = await call(ours)
    a.push(total)
    thread.push(onThread)
    const t = performance.now()
    js()
    b.push(performance.now() - t)
  }
  return { ours: median(a), js: median(b), thread: median(thread) }
}

// For answers of microseconds: `ours` called `n` times in a row (as in the
// ledger suite; a collection before each call would time a cold cache), then
// `js` 21 times.
async function burst(ours, js, n) {
  const a = []
  const thread = []
  for (let i = 0; i < n; i++) {
    const [total, onThread] = await call(ours)
    a.push(total)
    thread.push(onThread)
  }
  const b = []
  for (let i = 0; i < N; i++) {
    global.gc?.()
    const t = performance.now()
    js()
    b.push(performance.now() - t)
  }
  return { ours: median(a), js: median(b), thread: median(thread) }
}

async function row(ledger, memId, label, jsonPath, jsLabel, js, target, n) {
  const want = js()
  const got = await ledger.fetch(memId, { jsonPath })
  if (JSON.stringify(JSON.parse(got)) !== JSON.stringify(JSON.parse(want))) {
    throw new Error(`${label}: the answers differ: ${got.slice(0, 120)} / ${want.slice(0, 120)}`)
  }
  const fetch = () => ledger.fetch(memId, { jsonPath })
  const r = n ? await burst(fetch, js, n) : await race(fetch, js)
  return [label, `\`${jsonPath}\``, fmtMs(r.ours), fmtMs(r.thread), jsLabel, fmtMs(r.js), ratio(r.js / r.ours), target]
}

// Real payloads: [file, json path, JS equivalent of the answer's value].
const REAL = [
  ['github-openapi.json', "$.paths['/repos/{owner}/{repo}/issues'].get.operationId", (d) => d.paths['/repos/{owner}/{repo}/issues'].get.operationId],
  ['github-openapi.json', '#/components/parameters/page', (d) => d.components.parameters.page],
  ['github-openapi.json', "$.components.parameters[?@.in=='path'].name", (d) => Object.values(d.components.parameters).filter((p) => p.in === 'path').map((p) => p.name)],
  ['github-openapi.json', '$..operationId', (d) => descendants(d, 'operationId')],
  ['emoji-datasource-pretty.json', "$[?@.category=='Flags'].short_name", (d) => d.filter((e) => e.category === 'Flags').map((e) => e.short_name)],
  ['emoji-datasource-pretty.json', "$[?match(@.unified, '1F1[EF].*')].name", (d) => d.filter((e) => /^(?:1F1[EF][^\n\r]*)$/.test(e.unified)).map((e) => e.name)],
  ['spdx-full.json', '$[?@.osiApproved==true].name', (d) => Object.values(d).filter((l) => l.osiApproved === true).map((l) => l.name)],
  ['mdn-css-properties.json', "$[?@.status=='nonstandard' && length(@.syntax) > 40].syntax", (d) => Object.values(d).filter((p) => p.status === 'nonstandard' && typeof p.syntax === 'string' && [...p.syntax].length > 40).map((p) => p.syntax)],
  ['world-countries.json', "$[?@.region=='Europe' && @.independent==true].name.common", (d) => d.filter((c) => c.region === 'Europe' && c.independent === true).map((c) => c.name.common)],
  ['usa.geo.json', "$.features[?@.properties.cca2=='us'].geometry.type", (d) => d.features.filter((f) => f.properties.cca2 === 'us').map((f) => f.geometry.type)],
  ['github-openapi-deref.json', '$..operationId', (d) => descendants(d, 'operationId')],
  ['github-openapi-deref.json', "$.paths['/repos/{owner}/{repo}/issues'].get.operationId", (d) => d.paths['/repos/{owner}/{repo}/issues'].get.operationId],
]

// Paths that name one node: microseconds, timed as bursts.
const singular = (p) => p.startsWith('#') || !/[*?]|\.\.|,|:/.test(p)

async function real(ledger, dir) {
  const rows = []
  const texts = new Map()
  for (const [file, jsonPath, pick] of REAL) {
    const where = path.join(dir, file)
    if (!fs.existsSync(where)) continue
    if (!texts.has(file)) {
      const text = fs.readFileSync(where, 'utf8')
      const { memId } = await ledger.record({ toolCallId: file, toolName: 'real', content: text })
      texts.set(file, { text, memId })
    }
    const { text, memId } = texts.get(file)
    const js = () => JSON.stringify(pick(JSON.parse(text)))
    rows.push(await row(ledger, memId, `${file} (${mb(text)} MB)`, jsonPath, 'JSON.parse + JS + stringify', js, '', singular(jsonPath) ? 401 : 0))
  }
  return rows
}

async function main() {
  const ledger = new Ledger({ maxBytes: 2 ** 32 })
  const text = items()
  const { memId } = await ledger.record({ toolCallId: 'items', toolName: 'catalog', content: text })
  const size = `${mb(text)} MB items catalog`
  // Warm-up: both code paths and V8's JSON.parse.
  for (let i = 0; i < 3; i++) {
    JSON.parse(text)
    await ledger.fetch(memId, { jsonPath: '$.items[?@.stock==0].sku' })
  }
  const parse = () => JSON.parse(text)
  const last = JSON.parse(text).items.length - 1
  const rows = [
    await row(ledger, memId, `filter, ${size}`, '$.items[?@.stock==0].sku', 'JSON.parse + filter + stringify',
      () => JSON.stringify(parse().items.filter((x) => x.stock === 0).map((x) => x.sku)), '≥ 1×'),
    await row(ledger, memId, `descendants, ${size}`, '$..sku', 'JSON.parse + walk + stringify',
      () => JSON.stringify(descendants(parse(), 'sku')), '≥ 1×'),
    await row(ledger, memId, `union, ${size}`, "$.items[:100]['sku','stock']", 'JSON.parse + slice + stringify',
      () => JSON.stringify(parse().items.slice(0, 100).flatMap((x) => [x.sku, x.stock])), '', 401),
    await row(ledger, memId, `singular, ${size}`, '$.items[-1].sku', 'JSON.parse + walk + stringify',
      () => JSON.stringify(parse().items.at(-1).sku), '≥ 100×', 401),
    await row(ledger, memId, `JSON Pointer, ${size}`, `#/items/${last}/title`, 'JSON.parse + walk + stringify',
      () => JSON.stringify(parse().items[last].title), '≥ 100×', 401),
  ]
  const head = ['payload', 'json path', 'fetch (async)', 'of it on the JS thread', 'plain JS', 'plain JS time', 'speed-up', 'target']
  console.log('## JSONPath\n')
  console.log(table(head, rows))
  const dir = process.env.SYMFONIC_REAL_PAYLOADS
  if (dir) {
    console.log(`\nReal payloads (${dir}):\n`)
    console.log(table(head, await real(ledger, dir)))
  } else {
    console.log('\n(SYMFONIC_REAL_PAYLOADS unset: the real-payload rows were skipped)')
  }
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
