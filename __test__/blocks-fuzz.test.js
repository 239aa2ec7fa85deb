'use strict'
// The JS block readers fuzzed end to end (docs/blocks.md, "Facts from the
// bytes"): content of fuzzed blocks (bad base64, truncated headers, wrong
// types, huge declared sizes, every form a LangChain.js user meets) is read,
// recorded and fetched back; nothing throws and no original is lost. The runs
// default to a modest count; SYMFONIC_FUZZ_RUNS=100000 is the campaign
// (measured in benchmark/HISTORY.md). Headers are cut from fixtures/images.

const fs = require('node:fs')
const path = require('node:path')
const fc = require('fast-check')
const { Ledger, readBlocks } = require('..')

const RUNS = Number(process.env.SYMFONIC_FUZZ_RUNS) || 2000
const DIR = path.join(__dirname, '..', 'fixtures', 'images')
const FILES = ['cpython-python.png', 'cpython-python.jpg', 'cpython-python.gif', 'cpython-python.webp', 'crop-1x1.gif', 'screenshot-1x1.png', 'ipython-2x2.png', 'alpha-idle_48.webp', 'animated-idle.gif', 'highlightjs-pojoaque.jpg']
const REAL = FILES.map((f) => fs.readFileSync(path.join(DIR, f)))

const u32 = (n) => {
  const b = Buffer.alloc(4)
  b.writeUInt32BE(n >>> 0)
  return b
}
const u16 = (n) => Buffer.from([(n >> 8) & 0xff, n & 0xff])
const u24le = (n) => Buffer.from([n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff])
// Headers that declare sizes no image has (the reader must not trust them).
const huge = fc.tuple(fc.nat(), fc.nat(), fc.constantFrom('png', 'gif', 'jpeg', 'webp', 'pdf')).map(([w, h, kind]) => {
  switch (kind) {
    case 'png':
      return Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), u32(w), u32(h), Buffer.from([8, 6, 0, 0, 0])])
    case 'gif':
      return Buffer.concat([Buffer.from('GIF89a'), Buffer.from([w & 0xff, (w >> 8) & 0xff, h & 0xff, (h >> 8) & 0xff])])
    case 'jpeg':
      return Buffer.concat([Buffer.from('ffd8ffc0', 'hex'), u16(w), Buffer.from([8]), u16(h), u16(w), Buffer.from([3])])
    case 'webp':
      return Buffer.concat([Buffer.from('RIFF'), u32(w), Buffer.from('WEBPVP8X'), u32(10), Buffer.from([0, 0, 0, 0]), u24le(w), u24le(h)])
    default:
      return Buffer.from(`%PDF-1.7\n1 0 obj << /Type /Pages /Count ${w}${h} >> endobj\n`)
  }
})
const bytes = fc.oneof(
  fc.uint8Array({ maxLength: 64 }),
  fc.tuple(fc.constantFrom(...REAL), fc.nat()).map(([b, n]) => b.subarray(0, n % (b.length + 1))),
  fc.constantFrom(...REAL),
  huge,
)
const b64 = (b) => Buffer.from(b).toString('base64')
// Base64 a step from valid: cut, a character swapped, whitespace, the URL-safe alphabet, padding dropped or bits set.
const broken = fc.tuple(bytes, fc.nat(), fc.constantFrom('cut', 'swap', 'space', 'urlsafe', 'unpadded', 'bits')).map(([b, i, how]) => {
  const s = b64(b)
  const at = s.length === 0 ? 0 : i % s.length
  switch (how) {
    case 'cut':
      return s.slice(0, at)
    case 'swap':
      return s.slice(0, at) + '!' + s.slice(at + 1)
    case 'space':
      return s.slice(0, at) + '\n' + s.slice(at)
    case 'urlsafe':
      return s.replace(/\+/g, '-').replace(/\//g, '_')
    case 'unpadded':
      return s.replace(/=+$/, '')
    default:
      // The last group's unused bits set: decodes to the same bytes, but is another text.
      return s.endsWith('==') ? s.slice(0, -3) + 'B==' : s.endsWith('=') ? s.slice(0, -2) + 'B=' : s
  }
})
const data = fc.oneof(bytes.map(b64), broken, fc.string(), fc.constant(''))
const mime = fc.oneof(fc.constantFrom('image/png', 'image/jpeg', 'image/gif', 'image/webp', 'application/pdf', 'text/plain'), fc.string({ maxLength: 20 }), fc.anything())
const block = fc.oneof(
  fc.record({ type: fc.constantFrom('image', 'file'), data, mimeType: mime }),
  fc.record({ type: fc.constant('image'), data: bytes, mimeType: mime }),
  fc.record({ type: fc.constant('image'), source_type: fc.constant('base64'), data, mime_type: mime }),
  fc.tuple(mime, data).map(([m, d]) => ({ type: 'image_url', image_url: { url: `data:${typeof m === 'string' ? m : ''};base64,${d}` } })),
  fc.record({ type: fc.constantFrom('image', 'document'), source: fc.record({ type: fc.constant('base64'), media_type: mime, data }) }),
  fc.record({ type: fc.constant('input_file'), file_data: data.map((d) => `data:application/pdf;base64,${d}`), filename: fc.string({ maxLength: 12 }) }),
  // Wrong types anywhere.
  fc.record({ type: fc.constantFrom('image', 'file', 'image_url', 'input_image', 'document'), data: fc.anything(), url: fc.anything(), source: fc.anything(), image_url: fc.anything() }),
  fc.anything({ withBigInt: true, withNullPrototype: true, withMap: true, withTypedArray: true }),
)
const content = fc.array(block, { minLength: 1, maxLength: 4 }).map((bs) => [{ type: 'text', text: 'step' }, ...bs])

/** Records `blocks` and checks every block comes back as given; the number of blocks checked. */
async function roundTrip(ledger, blocks, n) {
  const read = readBlocks(blocks) ?? []
  const h = await ledger.recordBlocks({ toolCallId: `c${n}`, toolName: 'shot', content: blocks })
  let checked = 0
  for (const b of h.blocks) {
    const given = read[b.index - 1]
    const got = await ledger.fetchBlock(b.memId)
    if (got === null) throw new Error(`block ${b.index} of c${n} is lost`)
    if (given.data !== null && got.base64 !== given.data) throw new Error(`block ${b.index} of c${n}: its data came back changed`)
    if (got.data !== null && Buffer.compare(got.data, Buffer.from(given.data, 'base64')) !== 0) throw new Error(`block ${b.index} of c${n}: its bytes came back changed`)
    if (got.url !== given.url) throw new Error(`block ${b.index} of c${n}: its URL came back changed`)
    checked++
  }
  if (h.blocks.length !== read.filter((b) => b.type !== 'text').length) throw new Error(`c${n}: a block was not recorded`)
  return checked
}

describe(`JS block readers, fuzzed (${RUNS} runs)`, () => {
  test('read, recorded and fetched: nothing throws, no original lost', async () => {
    const ledger = new Ledger({ maxBytes: 64 * 1024 * 1024 })
    let n = 0
    let blocks = 0
    await fc.assert(
      fc.asyncProperty(content, async (c) => {
        blocks += await roundTrip(ledger, c, n++)
      }),
      { numRuns: RUNS },
    )
    expect(blocks).toBeGreaterThan(RUNS)
    await ledger.close()
  }, 60_000 + RUNS * 5)

  test('through a store (SQLite in memory): the same', async () => {
    const ledger = await Ledger.open({ store: 'sqlite::memory:', maxBytes: 1 })
    let n = 0
    await fc.assert(
      fc.asyncProperty(content, async (c) => {
        await roundTrip(ledger, c, n++)
      }),
      { numRuns: Math.max(200, Math.floor(RUNS / 20)) },
    )
    // maxBytes 1: every block was read back from the store.
    expect(ledger.stats().storeHits).toBeGreaterThan(0)
    await ledger.close()
  }, 60_000 + RUNS)
})
