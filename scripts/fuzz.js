'use strict'
// The long adversarial campaign (not in CI): `npm run fuzz -- --calls 10000000`.
// Property-based, as the jest suites are, but with many more runs and a new
// seed each time (printed, so a failure reproduces with --seed). Four
// properties, the calls split evenly between them:
//   recall     any arguments a model can send: a string within the cap, never
//              a throw or a rejection, no lone surrogate the payload lacked
//   json_path  random documents and paths: a single node comes back as its
//              original text, equal to what JSON.parse gives
//   roundtrip  any string (lone surrogates included) through record and a
//              full fetch comes back exactly; distinct strings, distinct ids
//   palette    allowlist membership equals an exact-equality reference
// Prints one line per property and a closing summary; exits 1 on a failure.

const fc = require('fast-check')
const { Ledger, recall, memIdFor, resolvePalette, MAX_OUTPUT_CHARS } = require('..')

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? Number(process.argv[i + 1]) : fallback
}
const CALLS = arg('calls', 100000)
const SEED = arg('seed', Date.now() % 2 ** 31)
const per = Math.max(1, Math.floor(CALLS / 4))

const ledger = new Ledger({ maxBytes: 256 * 1024 * 1024 })
const payloads = [
  'é😀 line\n'.repeat(30_000),
  JSON.stringify({ meta: { count: 7 }, rows: Array.from({ length: 3000 }, (_, i) => ({ id: i, name: `n😀${i}` })) }),
]
const ids = payloads.map((content, i) => ledger.recordSync({ toolCallId: `p${i}`, toolName: 't', content }).memId)
const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
// Any UTF-16 unit, surrogates (paired or lone) often: what a JS string can hold.
const unit = fc.oneof(
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
)
const anyString = (maxLength) => fc.string({ unit, maxLength })

const properties = {
  recall: fc.asyncProperty(
    fc.oneof(fc.constantFrom(...ids), fc.string(), fc.anything()),
    fc.record(
      {
        format: fc.oneof(fc.constantFrom('summary', 'full'), fc.anything()),
        query: fc.oneof(fc.constantFrom('😀', 'line', 'n😀42'), fc.string(), fc.anything()),
        offset: fc.oneof(fc.integer({ min: -10, max: 600_000 }), fc.double(), fc.anything()),
        maxChars: fc.oneof(fc.integer({ min: -10, max: 600_000 }), fc.double(), fc.anything()),
        jsonPath: fc.oneof(fc.constantFrom('rows[-1].name', 'meta', 'rows[*].id', 'rows[0:3]'), fc.string(), fc.anything()),
        maxOutputChars: fc.oneof(fc.integer({ min: -5, max: 60_000 }), fc.anything()),
      },
      { requiredKeys: [] },
    ),
    async (memId, options) => {
      const out = await recall(ledger, memId, options)
      if (typeof out !== 'string') throw new Error('not a string')
      const m = options.maxOutputChars
      const cap = typeof m === 'number' && m >= 1 ? Math.floor(m) : MAX_OUTPUT_CHARS
      if (Array.from(out).length > cap) throw new Error(`over the cap ${cap}`)
      if (LONE.test(out)) throw new Error('a lone surrogate')
    },
  ),
  json_path: fc.property(fc.jsonValue({ maxDepth: 6 }), fc.nat(), (value, pick) => {
    const text = JSON.stringify(value)
    const paths = []
    const walk = (v, p) => {
      if (p !== '') paths.push([p, v])
      if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${p}[${i}]`))
      else if (v !== null && typeof v === 'object') for (const k of Object.keys(v)) walk(v[k], `${p}["${k.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"]`)
    }
    walk(JSON.parse(text), '')
    if (paths.length === 0) return
    const [path, expected] = paths[pick % paths.length]
    const memId = ledger.recordSync({ toolCallId: 'j', toolName: 't', content: text }).memId
    const answer = ledger.fetchSync(memId, { jsonPath: path })
    if (answer.length >= MAX_OUTPUT_CHARS) return
    if (!text.includes(answer) || JSON.stringify(JSON.parse(answer)) !== JSON.stringify(expected)) throw new Error(`json_path ${path}: ${answer.slice(0, 80)}`)
  }),
  roundtrip: fc.property(anyString(200), anyString(200), (a, b) => {
    const ha = ledger.recordSync({ toolCallId: 'rt', toolName: 't', content: a })
    if (a.length > 0 && ledger.fetchSync(ha.memId, { format: 'full' }) !== a) throw new Error(`round trip of ${JSON.stringify(a)}`)
    if (a !== b && memIdFor('rt', a) === memIdFor('rt', b)) throw new Error(`${JSON.stringify(a)} and ${JSON.stringify(b)} share an id`)
  }),
  palette: fc.asyncProperty(
    fc.array(anyString(12), { maxLength: 12 }),
    fc.array(fc.oneof(anyString(12), anyString(6).map((s) => s + '*')), { maxLength: 12 }),
    async (names, allow) => {
      const tools = [...new Set(names)].filter((n) => n !== '').map((name) => ({ name }))
      // Only a trailing '*' is a pattern; any other '*' is a programmer error (a TypeError), not a model input.
      const allowlist = allow.filter((a) => a !== '' && !a.slice(0, -1).includes('*'))
      if (allowlist.length === 0 || tools.length === 0) return
      const got = await resolvePalette({}, 'action', tools, { roleTools: { action: allowlist }, logger: { warn() {} } })
      const admits = (n) => allowlist.some((a) => (a.endsWith('*') ? n.startsWith(a.slice(0, -1)) : n === a))
      const expected = tools.filter((t) => admits(t.name))
      // An allowlist that matches no tool fails closed: [].
      const names2 = got === null ? null : got.map((t) => t.name)
      if (JSON.stringify(names2) !== JSON.stringify(expected.map((t) => t.name))) {
        throw new Error(`palette ${JSON.stringify(allowlist)} over ${JSON.stringify(tools.map((t) => t.name))}: ${JSON.stringify(names2)}`)
      }
    },
  ),
}

async function main() {
  console.log(`fuzz: ${CALLS.toLocaleString('en-US')} calls, seed ${SEED}, ${process.version}`)
  let failed = 0
  const t0 = Date.now()
  for (const [name, property] of Object.entries(properties)) {
    const t = Date.now()
    const result = await fc.check(property, { numRuns: per, seed: SEED })
    const secs = ((Date.now() - t) / 1000).toFixed(1)
    if (result.failed) {
      failed++
      console.log(`${name}: FAILED after ${result.numRuns} runs (${secs} s): ${result.errorInstance && result.errorInstance.message}`)
      console.log(`  counterexample: ${fc.stringify(result.counterexample)}`)
    } else console.log(`${name}: ${result.numRuns.toLocaleString('en-US')} runs, no failure (${secs} s)`)
  }
  console.log(`fuzz: ${Object.keys(properties).length - failed} of ${Object.keys(properties).length} properties held over ${(per * 4).toLocaleString('en-US')} calls in ${((Date.now() - t0) / 1000).toFixed(0)} s`)
  process.exit(failed ? 1 : 0)
}

main()
