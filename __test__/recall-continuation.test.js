'use strict'
// Every capped answer continues to the end: on the largest payloads of
// fixtures/payloads, a model that follows what each answer says (the
// `offset` to pass, the `json_path` to read a node too long for one answer,
// the `lines` to read on) reaches every node, match and line, none twice,
// every answer within the cap and cut at a whole node, match or line. JSON
// answers are compact: at most 1.05 x the minified node.

const fs = require('node:fs')
const path = require('node:path')
const { Ledger } = require('..')
const { createRecallToolResultTool } = require('../langchain')

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'payloads')
const read = (f) => fs.readFileSync(path.join(FIXTURES, f), 'utf8')
const chars = (s) => Array.from(s).length

const ledger = new Ledger({ maxBytes: 2 ** 30 })
const texts = {}
const ids = {}
beforeAll(async () => {
  for (const [name, file] of [
    ['emoji', 'emojibase-ja-data.json'], // 775 KB, one line
    ['orders', 'tau-retail-orders-120.json'], // 238 KB, 7,942 lines
    ['octokit', 'octokit-paginate-issues.json'], // recorded API calls, long strings
    ['mdn', 'mdn-l10n-css.json'],
  ]) {
    texts[name] = read(file)
    ids[name] = (await ledger.record({ toolCallId: `walk-${name}`, toolName: 'read', content: texts[name] })).memId
  }
})

const CALLS = 20000 // a walk that needs more is a loop
const header = (a) => (a.startsWith('[recall: ') ? a.slice(0, a.indexOf(']\n') + 1 || a.length) : '')
const bodyOf = (a) => (a.startsWith('[recall: ') && a.includes(']\n') ? a.slice(a.indexOf(']\n') + 2) : a)
const nextOffset = (h) => {
  const m = /pass offset=(\d+) with the same/.exec(h)
  return m ? Number(m[1]) : null
}

// The value `jsonPath` names, read as a model would: pages followed by their
// offset, a node too long for one answer read by the json_path named, a long
// string read on by its payload offset.
async function readAll(t, memId, jsonPath, cap, seen) {
  let offset
  let list
  let object
  for (let calls = 0; calls < CALLS; calls++) {
    const a = await t.invoke({ mem_id: memId, json_path: jsonPath, ...(offset !== undefined ? { offset } : {}) })
    seen.answers++
    expect(chars(a)).toBeLessThanOrEqual(cap)
    const h = header(a)
    if (h === '') {
      if (!a.includes('\n...[recall_tool_result output truncated')) return JSON.parse(a) // fits whole
      return JSON.parse(await readRaw(t, memId, a, cap, seen)) // one long scalar, cut in the payload
    }
    const tooBig = /(?:alone is too long for one answer|does not fit beside this header): read it with json_path=("(?:[^"\\]|\\.)*")/.exec(h)
    const single = / is an (object|array) of \d+ /.exec(h)
    if (single && single[1] === 'object') object ??= {}
    else list ??= []
    if (tooBig) {
      const p = JSON.parse(tooBig[1])
      const v = await readAll(t, memId, p, cap, seen)
      seen.redirects++
      if (object) object[/\['((?:[^'\\]|\\.)*)'\]$/.exec(p)[1].replace(/\\(.)/g, '$1')] = v
      else list.push(v)
    } else {
      const page = JSON.parse(bodyOf(a))
      if (object) Object.assign(object, page)
      else list.push(...page)
    }
    const next = /for the (?:rest|\w+ after it) pass offset=(\d+) with the same json_path/.exec(h)
    if (!next) return object ?? list
    offset = Number(next[1])
  }
  throw new Error('no end')
}

// A payload part cut by the cap, read on by the offsets its markers give.
async function readRaw(t, memId, first, cap, seen) {
  let out = ''
  let a = first
  for (let calls = 0; calls < CALLS; calls++) {
    const cut = a.indexOf('\n...[recall_tool_result output truncated')
    out += cut < 0 ? a : a.slice(0, cut)
    const m = /continue with offset=(\d+)/.exec(a)
    if (cut < 0 || !m) return out
    a = await t.invoke({ mem_id: memId, offset: Number(m[1]), max_chars: cap })
    seen.answers++
    const end = scalarEnd(out + a)
    if (end >= 0) return (out + a).slice(0, end)
  }
  throw new Error('no end')
}

// The end of the JSON string or number `s` starts with, or -1 if it goes on.
function scalarEnd(s) {
  if (s[0] !== '"') return -1
  for (let i = 1; i < s.length; i++) {
    if (s[i] === '\\') i++
    else if (s[i] === '"') return i + 1
  }
  return -1
}

describe('json_path answers page by whole nodes to the end', () => {
  test('a nodelist of 1,949 strings at a 2,000-char cap', async () => {
    const t = createRecallToolResultTool(ledger, { maxOutputChars: 2000 })
    const seen = { answers: 0, redirects: 0 }
    expect(await readAll(t, ids.emoji, '$[*].label', 2000, seen)).toEqual(JSON.parse(texts.emoji).map((e) => e.label))
    expect(seen.answers).toBeGreaterThan(5)
  })

  test('one array of 1,949 records: its elements, whole, page after page', async () => {
    const t = createRecallToolResultTool(ledger)
    const seen = { answers: 0, redirects: 0 }
    expect(await readAll(t, ids.emoji, '$', 50000, seen)).toEqual(JSON.parse(texts.emoji))
    expect(seen.answers).toBeGreaterThan(5)
  })

  test('one object of 120 orders: its members with their keys, in order', async () => {
    const t = createRecallToolResultTool(ledger, { maxOutputChars: 8000 })
    const seen = { answers: 0, redirects: 0 }
    const got = await readAll(t, ids.orders, '$', 8000, seen)
    expect(JSON.stringify(got)).toBe(JSON.stringify(JSON.parse(texts.orders)))
  })

  test('recorded API calls whose nodes and strings are longer than the cap: read through the json_path and offsets named', async () => {
    const t = createRecallToolResultTool(ledger, { maxOutputChars: 3000 })
    const seen = { answers: 0, redirects: 0 }
    expect(await readAll(t, ids.octokit, '$[*]', 3000, seen)).toEqual(JSON.parse(texts.octokit))
    expect(seen.redirects).toBeGreaterThan(0)
  })

  test('with paths, the Normalized Path of every node', async () => {
    const t = createRecallToolResultTool(ledger, { maxOutputChars: 4000 })
    const pairs = []
    let offset
    for (;;) {
      const a = await t.invoke({ mem_id: ids.emoji, json_path: '$[*].hexcode', format: 'paths', ...(offset ? { offset } : {}) })
      pairs.push(...JSON.parse(bodyOf(a)))
      const m = /pass offset=(\d+)/.exec(header(a))
      if (!m) break
      offset = Number(m[1])
    }
    const want = JSON.parse(texts.emoji).map((e, i) => [`$[${i}]['hexcode']`, e.hexcode])
    expect(pairs).toEqual(want)
  })
})

// Windows of a query answer: where each starts, and its text.
function windowsOf(a) {
  return bodyOf(a)
    .split('\n---\n')
    .map((w) => {
      const m = /^\(offset (\d+), line (\d+)\)\n/.exec(w)
      let text = w.slice(m[0].length)
      const lead = text.startsWith('...') && Number(m[1]) > 0
      if (lead) text = text.slice(3)
      return { start: Number(m[1]), line: Number(m[2]), text }
    })
}

describe('query and pattern answers continue by offset to every match', () => {
  test('a query on a one-line 775 KB payload: every match once, windows that never overlap', async () => {
    const t = createRecallToolResultTool(ledger, { maxOutputChars: 5000 })
    const q = '"type":0'
    const want = texts.emoji.split(q).length - 1
    let found = 0
    let offset
    let last = -1
    for (let calls = 0; ; calls++) {
      expect(calls).toBeLessThan(CALLS)
      const a = await t.invoke({ mem_id: ids.emoji, query: q, ...(offset !== undefined ? { offset } : {}) })
      expect(chars(a)).toBeLessThanOrEqual(5000)
      expect(header(a)).toMatch(new RegExp(`^\\[recall: ${want} matches for query '"type":0'`))
      for (const w of windowsOf(a)) {
        expect(w.start).toBeGreaterThanOrEqual(last) // after the window before: no text twice
        const text = w.text.endsWith('...') ? w.text.slice(0, -3) : w.text
        expect(Array.from(texts.emoji).slice(w.start, w.start + chars(text)).join('')).toBe(text)
        found += text.split(q).length - 1
        last = w.start + chars(text)
      }
      offset = nextOffset(header(a))
      if (offset === null) break
    }
    expect(found).toBe(want)
    expect(await t.invoke({ mem_id: ids.emoji, query: q, format: 'count' })).toBe(`[recall: ${want} matches for query '"type":0' in ${ids.emoji}]`)
  })

  test('a pattern on that one line: one part per match, every match once, to the end', async () => {
    const t = createRecallToolResultTool(ledger, { maxOutputChars: 3000 })
    const re = /"hexcode":"1F6[0-9A-F]{2}"/g
    const want = texts.emoji.match(re).length
    let found = 0
    let offset
    for (let calls = 0; ; calls++) {
      expect(calls).toBeLessThan(CALLS)
      const a = await t.invoke({ mem_id: ids.emoji, pattern: re.source, ...(offset !== undefined ? { offset } : {}) })
      expect(chars(a)).toBeLessThanOrEqual(3000)
      expect(header(a)).toMatch(/^\[recall: 1 matching line for pattern /)
      for (const part of bodyOf(a).split('\n')) {
        expect(part.startsWith('1:')).toBe(true)
        found += (part.match(re) || []).length
      }
      offset = nextOffset(header(a))
      if (offset === null) break
    }
    expect(found).toBe(want)
    expect(want).toBeGreaterThan(50)
  })

  test('a pattern over 7,942 lines: every matching line once, in order', async () => {
    const t = createRecallToolResultTool(ledger, { maxOutputChars: 3000 })
    const lines = texts.orders.split('\n')
    const want = lines.map((l, i) => (/"status": "(pending|processed)"/.test(l) ? i + 1 : 0)).filter(Boolean)
    const got = []
    let offset
    for (let calls = 0; ; calls++) {
      expect(calls).toBeLessThan(CALLS)
      const a = await t.invoke({ mem_id: ids.orders, pattern: '"status": "(pending|processed)"', ...(offset !== undefined ? { offset } : {}) })
      expect(chars(a)).toBeLessThanOrEqual(3000)
      for (const l of bodyOf(a).split('\n')) got.push(Number(l.split(':')[0]))
      offset = nextOffset(header(a))
      if (offset === null) break
    }
    expect(got).toEqual(want)
    expect(await t.invoke({ mem_id: ids.orders, pattern: '"status": "(pending|processed)"', format: 'count' })).toBe(
      `[recall: ${want.length} matching lines for pattern '"status": "(pending|processed)"' in ${ids.orders}]`,
    )
  })

  test('lines read on to the last, numbered, each once', async () => {
    const t = createRecallToolResultTool(ledger, { maxOutputChars: 5000 })
    const got = []
    let lines = '1-'
    for (let calls = 0; lines !== null; calls++) {
      expect(calls).toBeLessThan(CALLS)
      const a = await t.invoke({ mem_id: ids.orders, lines })
      expect(chars(a)).toBeLessThanOrEqual(5000)
      for (const l of bodyOf(a).split('\n')) got.push(l)
      const m = /pass lines='(\d+-)'/.exec(header(a))
      lines = m ? m[1] : null
    }
    const want = texts.orders.split('\n')
    if (want[want.length - 1] === '') want.pop()
    expect(got).toEqual(want.map((l, i) => `${i + 1}:${l}`))
  })
})

// Small caps: every page shows something and names the offset after it, so a
// walk ends, reaching every match once (a long line's parts shrink to the
// budget, a match longer than it shows its head and the call for the rest).
describe.each([400, 600, 1000])('at a %i-char cap', (cap) => {
  const walk = async (args, count) => {
    const t = createRecallToolResultTool(ledger, { maxOutputChars: cap })
    const offsets = []
    let found = 0
    let offset
    for (let calls = 0; ; calls++) {
      expect(calls).toBeLessThan(CALLS)
      const a = await t.invoke({ ...args, ...(offset !== undefined ? { offset } : {}) })
      expect(chars(a)).toBeLessThanOrEqual(cap)
      expect(a).not.toContain('output truncated') // built within the cap
      const body = bodyOf(a)
      expect(body).not.toBe(a) // a header, then
      expect(body.length).toBeGreaterThan(0) // never an empty page
      found += count(body)
      offset = nextOffset(header(a))
      if (offset === null) break
      expect(offsets.length === 0 || offset > offsets[offsets.length - 1]).toBe(true) // no loop
      offsets.push(offset)
    }
    return found
  }

  test('pattern on a one-line 775 KB payload', async () => {
    const re = /"hexcode":"1F6[0-9A-F]{2}"/g
    const got = await walk({ mem_id: ids.emoji, pattern: re.source }, (b) => (b.match(re) || []).length)
    expect(got).toBe(texts.emoji.match(re).length)
  })

  test('query on that line and over 7,942 lines', async () => {
    expect(await walk({ mem_id: ids.emoji, query: '"type":0' }, (b) => b.split('"type":0').length - 1)).toBe(texts.emoji.split('"type":0').length - 1)
    expect(await walk({ mem_id: ids.orders, query: 'pending' }, (b) => b.split('pending').length - 1)).toBe(texts.orders.split('pending').length - 1)
  })

  test('json_path over 120 orders', async () => {
    const got = []
    await walk({ mem_id: ids.orders, json_path: '$.*.status' }, (b) => got.push(...JSON.parse(b)))
    expect(got).toEqual(Object.values(JSON.parse(texts.orders)).map((o) => o.status))
  })

  test('a match longer than the answer: its head, the call that reads the rest, and on', async () => {
    const q = Array.from(texts.emoji).slice(1000, 1000 + cap).join('')
    const a = await createRecallToolResultTool(ledger, { maxOutputChars: cap }).invoke({ mem_id: ids.emoji, query: q })
    expect(chars(a)).toBeLessThanOrEqual(cap)
    const m = /the match at offset=1000 is (\d+) chars(?:: its first (\d+) shown; for the rest of it pass offset=(\d+) and max_chars=(\d+)|, too long for this answer: read it with offset=1000 and max_chars=(\d+))/.exec(a)
    expect(m).not.toBeNull()
    expect(Number(m[1])).toBe(cap)
    if (m[2]) expect([Number(m[3]), Number(m[4])]).toEqual([1000 + Number(m[2]), cap - Number(m[2])])
  })
})

test('json_path at a 150-char cap: a short first line, whole nodes page after page', async () => {
  const t = createRecallToolResultTool(ledger, { maxOutputChars: 150 })
  const got = []
  let offset
  for (let calls = 0; ; calls++) {
    expect(calls).toBeLessThan(CALLS)
    const a = await t.invoke({ mem_id: ids.orders, json_path: '$.*.status', ...(offset !== undefined ? { offset } : {}) })
    expect(chars(a)).toBeLessThanOrEqual(150)
    const page = JSON.parse(bodyOf(a))
    expect(page.length).toBeGreaterThan(0)
    got.push(...page)
    offset = nextOffset(header(a))
    if (offset === null) break
  }
  expect(got).toEqual(Object.values(JSON.parse(texts.orders)).map((o) => o.status))
})

describe('JSON answers are compact: at most 1.05 x the minified node', () => {
  // Python's json.dumps(indent=4) escapes every non-ASCII character: the
  // way many APIs serve JSON (tau-bench's orders were written this way).
  const asciiEscaped = (v) => JSON.stringify(v, null, 4).replace(/[\u007f-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))

  test.each([
    ['emoji', '$[100]'],
    ['emoji', '$[*].label'],
    ['orders', "$['#W2611340']"],
    ['orders', '$.*.status'],
    ['mdn', '$.absoluteLength'],
    ['octokit', '$[0].reqheaders'],
  ])('%s %s, as served and ASCII-escaped', async (name, jsonPath) => {
    const value = JSON.parse(texts[name])
    for (const text of [texts[name], asciiEscaped(value)]) {
      const { memId } = await ledger.record({ toolCallId: `compact-${name}-${text.length}`, toolName: 'read', content: text })
      const answer = await ledger.fetch(memId, { jsonPath })
      const node = JSON.parse(answer)
      const minified = JSON.stringify(node)
      expect(chars(answer)).toBeLessThanOrEqual(1.05 * chars(minified))
      // The exact text stays available.
      const raw = await ledger.fetch(memId, { jsonPath, format: 'raw' })
      expect(JSON.parse(raw)).toEqual(node)
      if (!jsonPath.includes('*')) expect(text.includes(raw)).toBe(true)
    }
  })
})
