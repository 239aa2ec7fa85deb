'use strict'
// needs: redis-server
// Results made of content blocks in the Ledger (docs/blocks.md): every form a
// LangChain.js user meets read into one neutral form, each image or document
// kept as an entry of its own in memory, SQLite and Redis, its facts read
// from its bytes (fixtures/images, with what independent tools read in
// expected.json), given back byte for byte; bad blocks kept and opaque.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const fc = require('fast-check')
const { Ledger, describeBlock, readBlocks, recall, blocksAnswer } = require('..')
const { startRedis, freePort } = require('./support/redis-server.js')

const DIR = path.join(__dirname, '..', 'fixtures', 'images')
const expected = JSON.parse(fs.readFileSync(path.join(DIR, 'expected.json'), 'utf8'))
const b64 = (f) => fs.readFileSync(path.join(DIR, f)).toString('base64')
const MIME = { png: 'image/png', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', pdf: 'application/pdf' }

describe('readBlocks: every form, one neutral block', () => {
  const png = b64('cpython-python.png')
  const forms = {
    'standard image, base64': { type: 'image', data: png, mimeType: 'image/png' },
    'standard image, Uint8Array': { type: 'image', data: new Uint8Array(Buffer.from(png, 'base64')), mimeType: 'image/png' },
    'v0 data block': { type: 'image', source_type: 'base64', data: png, mime_type: 'image/png' },
    'legacy image_url data URL': { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
    'legacy image_url string': { type: 'image_url', image_url: `data:image/png;base64,${png}` },
    'Anthropic image': { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
    'OpenAI input_image': { type: 'input_image', image_url: `data:image/png;base64,${png}`, detail: 'auto' },
  }
  for (const [name, block] of Object.entries(forms)) {
    test(name, () => {
      const [b] = readBlocks([block])
      expect(b).toEqual({ type: 'image', mimeType: 'image/png', data: png, url: null, fileId: null, filename: null })
    })
  }

  test('documents and files: Anthropic document, OpenAI input_file and Chat Completions file', () => {
    const pdf = b64('book-ch03-02.pdf')
    const want = { type: 'file', mimeType: 'application/pdf', data: pdf, url: null }
    expect(readBlocks([{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: pdf } }])[0]).toMatchObject(want)
    expect(readBlocks([{ type: 'input_file', filename: 'a.pdf', file_data: `data:application/pdf;base64,${pdf}` }])[0]).toMatchObject({ ...want, filename: 'a.pdf' })
    expect(readBlocks([{ type: 'file', file: { filename: 'a.pdf', file_data: `data:application/pdf;base64,${pdf}` } }])[0]).toMatchObject(want)
    expect(readBlocks([{ type: 'file', data: pdf, mimeType: 'application/pdf' }])[0]).toMatchObject(want)
  })

  test('URL blocks are references, never fetched; text beside them stays text', () => {
    const got = readBlocks([
      { type: 'text', text: 'Page: https://example.test/a' },
      { type: 'image', url: 'https://example.test/shot.png' },
      { type: 'image', source: { type: 'url', url: 'https://example.test/b.png' } },
      { type: 'input_image', image_url: 'https://example.test/c.png' },
      { type: 'tool_use', id: 'x' },
    ])
    expect(got.map((b) => b.url ?? b.text)).toEqual([
      'Page: https://example.test/a',
      'https://example.test/shot.png',
      'https://example.test/b.png',
      'https://example.test/c.png',
      '{"type":"tool_use","id":"x"}',
    ])
    expect(readBlocks('a string')).toBeNull()
    expect(readBlocks([{ type: 'text', text: 'only text' }])).toBeNull()
  })

  test('fuzzed blocks: reading never throws, and what it keeps is what was given', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.anything(), fc.record({ type: fc.constantFrom('image', 'file', 'image_url', 'input_image', 'input_file', 'document', 'text'), data: fc.oneof(fc.string(), fc.base64String()), source: fc.anything(), image_url: fc.anything(), mimeType: fc.anything() }, { requiredKeys: ['type'] })), { maxLength: 6 }), (content) => {
        const out = readBlocks(content)
        if (out !== null) expect(out).toHaveLength(content.length)
      }),
      { numRuns: 3000 },
    )
  })
})

describe('describeBlock: facts from the bytes, on every fixture', () => {
  test.each(Object.keys(expected))('%s', (file) => {
    const want = expected[file]
    const facts = describeBlock(fs.readFileSync(path.join(DIR, file)), want.declared)
    expect(facts.format).toBe(want.format)
    expect(facts.mimeType).toBe(MIME[want.format])
    expect(facts.opaque).toBeUndefined()
    if (want.format === 'pdf') expect(facts.pages).toBe(want.pages)
    else expect([facts.width, facts.height, facts.frames ?? 1]).toEqual([want.width, want.height, want.frames ?? 1])
    if (want.format === 'jpeg') expect([facts.progressive, facts.orientation ?? 1]).toEqual([want.progressive, want.orientation])
    expect(facts.mismatch).toBe(want.declared !== undefined && want.declared !== MIME[want.format])
  })
})

async function roundTrip(ledger) {
  const files = Object.keys(expected)
  const content = [{ type: 'text', text: 'Fixtures, one block each.' }]
  for (const f of files) content.push({ type: expected[f].format === 'pdf' ? 'file' : 'image', data: b64(f), mimeType: expected[f].declared ?? MIME[expected[f].format] })
  const handle = await ledger.recordBlocks({ toolCallId: 'call_fixtures', toolName: 'screenshot', content })
  expect(handle.blocks).toHaveLength(files.length)
  const lines = handle.stub.split('\n')
  // One line per block, each naming the call that shows it again.
  expect(lines.filter((l) => l.startsWith('block '))).toHaveLength(files.length)
  for (const [i, b] of handle.blocks.entries()) {
    expect(lines).toContain(`block ${i + 2}: ${b.type} ${b.facts.line}. To see it again: recall_tool_result(mem_id="${b.memId}")`)
    const got = await ledger.fetchBlock(b.memId)
    expect(Buffer.compare(got.data, fs.readFileSync(path.join(DIR, files[i])))).toBe(0)
    expect(got.base64).toBe(content[i + 1].data)
    expect(got.mimeType).toBe(MIME[expected[files[i]].format])
  }
  return handle
}

describe('blocks in the ledger', () => {
  test('in memory: stub lines from the bytes, bytes back identical', async () => {
    const ledger = new Ledger()
    const h = await roundTrip(ledger)
    const n = (f) => Object.keys(expected).indexOf(f) + 2
    expect(h.stub).toContain(`block ${n('exif-rotated-6.jpg')}: image jpeg 512×600 (EXIF orientation 6: shown 600×512), 61,406 bytes. To see`)
    expect(h.stub).toContain(`block ${n('cpython-python.png')}: image png 16×16 [declared image/jpeg, bytes disagree], 1,020 bytes. To see`)
    expect(h.stub).toContain(`block ${n('screenshot-fullpage-600x4000.png')}: image png 600×4000, 522,417 bytes. To see`)
    // The text entry keeps the text and one placeholder per block.
    expect(await ledger.fetch(h.memId, { format: 'full', maxChars: 0 })).toMatch(/^Fixtures, one block each\.\n\[image 2: webp 48×48, 1,274 bytes; mem_id=trm_[0-9a-f]{12}\]\n/)
    // Recording again gives the same ids and the same stub.
    const again = await ledger.recordBlocks({ toolCallId: 'call_fixtures', toolName: 'screenshot', content: [{ type: 'text', text: 'Fixtures, one block each.' }, ...Object.keys(expected).map((f) => ({ type: expected[f].format === 'pdf' ? 'file' : 'image', data: b64(f), mimeType: expected[f].declared ?? MIME[expected[f].format] }))] })
    expect(again.stub).toBe(h.stub)
    expect(await ledger.fetchBlock(h.memId)).toBeNull()
  })

  test('bad blocks are kept as given and described as opaque', async () => {
    const ledger = new Ledger()
    const png = fs.readFileSync(path.join(DIR, 'cpython-python.png'))
    const content = [
      { type: 'image', data: 'not base64 at all!', mimeType: 'image/png' },
      { type: 'image', data: png.subarray(0, 20).toString('base64'), mimeType: 'image/png' },
      { type: 'image', data: '', mimeType: 'image/png' },
      { type: 'image', data: Buffer.from('plain text, declared an image').toString('base64'), mimeType: 'image/jpeg' },
      { type: 'image', url: 'https://example.test/never-fetched.png' },
      // Base64 that does not encode back to itself: kept as text, as given.
      { type: 'image', data: b64('ipython-2x2.png').replace(/=+$/, ''), mimeType: 'image/png' },
      { type: 'image', data: png.toString('base64').replace(/(.{76})/g, '$1\n'), mimeType: 'image/png' },
    ]
    const h = await ledger.recordBlocks({ toolCallId: 'bad', toolName: 't', content })
    expect(h.blocks.map((b) => b.facts.line)).toEqual([
      'opaque (not base64), 18 characters',
      'opaque (png magic, truncated or malformed header), 20 bytes',
      'opaque (empty), 0 bytes',
      'opaque (format not recognised) [declared image/jpeg, bytes disagree], 29 bytes',
      'reference (by URL, not fetched: https://example.test/never-fetched.png)',
      'opaque (not base64), 95 characters',
      'opaque (not base64), 1,377 characters',
    ])
    for (const [i, b] of h.blocks.entries()) {
      const got = await ledger.fetchBlock(b.memId)
      expect(got.base64).toBe(content[i].url ? null : content[i].data)
      expect(got.url).toBe(content[i].url ?? null)
    }
  })

  test('maxBytes counts the blocks: a screenshot is evicted like any result', async () => {
    const shot = b64('screenshot-book-1280x800.png')
    // Its bytes are 193,497: two are over 300,000, one is not (as base64 text, one alone would be 262,056).
    const ledger = new Ledger({ maxBytes: 300_000 })
    const a = await ledger.recordBlocks({ toolCallId: 'a', toolName: 'shot', content: [{ type: 'image', data: shot, mimeType: 'image/png' }] })
    const b = await ledger.recordBlocks({ toolCallId: 'b', toolName: 'shot', content: [{ type: 'image', data: shot, mimeType: 'image/png' }] })
    expect(ledger.stats().evictions).toBeGreaterThan(0)
    expect(await ledger.fetchBlock(a.blocks[0].memId)).toBeNull()
    expect((await ledger.fetchBlock(b.blocks[0].memId)).data.length).toBe(193_497)
  })

  test('a block is held as its bytes: memory counts them, a text read says what it is', async () => {
    const ledger = new Ledger()
    const file = 'screenshot-book-1280x800.png'
    const h = await ledger.recordBlocks({ toolCallId: 'call_7', toolName: 'shot', content: [{ type: 'text', text: 'Step 7' }, { type: 'image', data: b64(file), mimeType: 'image/png' }] })
    const id = h.blocks[0].memId
    // The bytes, the head, both handles and the text entry: not the 4/3 of base64 text.
    expect(ledger.stats().bytes).toBeGreaterThan(193_497)
    expect(ledger.stats().bytes).toBeLessThan(193_497 + 8_000)
    const said = `[tool_memory: ${id} is image 2 of call_7: png 1280×800, 193,497 bytes: bytes, not text (193497 bytes)`
    expect(await ledger.fetch(id, { format: 'full' })).toMatch(new RegExp(`^${said.replace(/[[\]().*+?^$|{}]/g, '\\$&')}.*Ledger\.fetchBlock gives its bytes\]$`))
    expect((await recall(ledger, id)).startsWith(said)).toBe(true)
    expect((await ledger.recall(id)).startsWith(said)).toBe(true)
    // Asked for as a block, recall() gives it back as a recall tool would.
    const asked = await recall(ledger, id, { blocks: 'anthropic' })
    expect(asked).toEqual(blocksAnswer([await ledger.fetchBlock(id)], 'anthropic'))
    expect(asked.tool[1].source.data).toBe(b64(file))
    // Any other entry answers its text, blocks asked or not.
    expect(await recall(ledger, h.memId, { blocks: 'standard', format: 'full' })).toMatch(/^Step 7\n\[image 2: png 1280×800/)
    await expect(recall(ledger, id, { blocks: 'png' })).rejects.toThrow(/^recall\(ledger, memId, options\): blocks must be one of 'standard'/)
  })

  test('blocks recorded before bytes (base64 text envelopes) are read as ever', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'symfonic-blocks-v1-')), 'l.db')
    const png = b64('screenshot-1x1.png')
    const first = await Ledger.open({ store: `sqlite:${file}` })
    // What the previous build recorded for a block: its base64 as text, after two lines.
    const meta = { type: 'image', mimeType: 'image/jpeg', url: null, fileId: null, filename: null }
    const old = await first.record({ toolCallId: 'call_7#2', toolName: 'browser_screenshot', content: `[symfonic.block v1] image 2 of call_7: png 1×1 [declared image/jpeg, bytes disagree], 87 bytes\n${JSON.stringify(meta)}\n${png}` })
    await first.close()
    const second = await Ledger.open({ store: `sqlite:${file}` })
    const got = await second.fetchBlock(old.memId)
    expect([got.base64, got.mimeType, got.declaredMimeType, got.facts.line]).toEqual([png, 'image/png', 'image/jpeg', 'png 1×1 [declared image/jpeg, bytes disagree], 87 bytes'])
    expect(Buffer.compare(got.data, fs.readFileSync(path.join(DIR, 'screenshot-1x1.png')))).toBe(0)
    expect(blocksAnswer([got], 'standard').tool[1]).toEqual({ type: 'image', data: png, mimeType: 'image/png' })
    await second.close()
  })

  test('SQLite: the bytes survive a restart', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'symfonic-blocks-')), 'l.db')
    const first = await Ledger.open({ store: `sqlite:${file}` })
    const h = await roundTrip(first)
    await first.close()
    const second = await Ledger.open({ store: `sqlite:${file}` })
    const got = await second.fetchBlock(h.blocks[0].memId)
    expect(got.facts.line).toBe(h.blocks[0].facts.line)
    await second.close()
  })

  test('Redis: the bytes and their TTL', async () => {
    const port = await freePort()
    const server = await startRedis({ port, dir: fs.mkdtempSync(path.join(os.tmpdir(), 'symfonic-blocks-redis-')) })
    try {
      const ledger = await Ledger.open({ store: `redis://127.0.0.1:${port}/0` })
      const h = await roundTrip(ledger)
      const short = await ledger.recordBlocks({ toolCallId: 'ttl', toolName: 't', ttlSeconds: 0.2, content: [{ type: 'image', data: b64('crop-1x1.gif'), mimeType: 'image/gif' }] })
      await new Promise((r) => setTimeout(r, 400))
      expect(await ledger.fetchBlock(short.blocks[0].memId)).toBeNull()
      await ledger.close()
      const other = await Ledger.open({ store: `redis://127.0.0.1:${port}/0` })
      expect((await other.fetchBlock(h.blocks[3].memId)).base64).toBe(b64(Object.keys(expected)[3]))
      await other.close()
    } finally {
      await server.stop()
    }
  }, 30000)

  test('mistakes are TypeErrors naming the call', async () => {
    const ledger = new Ledger()
    await expect(ledger.recordBlocks({ toolCallId: 'x', toolName: 't', content: 'a string' })).rejects.toThrow(/^Ledger\.recordBlocks\(input\): content must be an array/)
    await expect(ledger.recordBlocks({ toolCallId: 'x', toolName: 't', content: [], colour: 1 })).rejects.toThrow(TypeError)
    await expect(ledger.fetchBlock('')).rejects.toThrow(/^Ledger\.fetchBlock\(memId, options\): memId/)
  })
})
