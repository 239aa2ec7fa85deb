'use strict'
// needs: sqlite3, cargo
// Stub v2 on real payloads (fixtures/payloads, with their sources and
// licenses): every fact a stub states is checked against the whole payload,
// computed here independently (counts, ranges, columns and their kinds,
// headings, the first and last errors and lines), and every call it
// suggests is made and finds exactly what the stub counts. A stub has no
// line these checks do not read. It stays within about 1,000 characters, is
// byte-identical in another process, and a stored v1 or v2 stub is never
// rewritten.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { execFileSync } = require('node:child_process')
const { Ledger, recall } = require('..')
const { compactToolMessages } = require('../langchain')
const hooks = require('./support/hooks.js')
const { AIMessage, HumanMessage, ToolMessage } = require('@langchain/core/messages')

const DIR = path.join(__dirname, '..', 'fixtures', 'payloads')
const read = (f) => fs.readFileSync(path.join(DIR, f), 'utf8')
const FILES = fs
  .readdirSync(DIR)
  .filter((f) => fs.statSync(path.join(DIR, f)).isFile() && !/\.(md|sh)$/.test(f))
  .sort()
const record = (ledger, f) => ledger.recordSync({ toolCallId: `call_${f}`, toolName: 'read_file', toolArgs: { path: f }, content: read(f) })

// ---- reading a stub -------------------------------------------------------

/** The stub's lines by label, and the recall line's suggested arguments. */
function parse(stub) {
  const lines = stub.split('\n')
  const facts = new Map()
  for (const l of lines.slice(1, -1)) {
    const m = /^([a-z][a-z ]*?): (.*)$/.exec(l)
    if (m && !['summary', 'preview'].includes(m[1])) facts.set(m[1], m[2])
  }
  const last = lines[lines.length - 1]
  const call = /^To read more: recall_tool_result\(mem_id="(trm_[0-9a-f]{12})", (.*)$/.exec(last)
  const args = [...call[2].matchAll(/([a-z_]+)=("(?:[^"\\]|\\.)*")/g)].map((m) => [m[1], JSON.parse(m[2])])
  return { facts, args, memId: call[1] }
}

// The payload's lines as the stub numbers them (a last line end adds none).
const linesOf = (text) => text.replace(/\n$/, '').split('\n').map((l) => l.replace(/\r$/, ''))
const collapse = (s) => s.trim().replace(/[ \t\r\n]+/g, ' ')
// A stub's text cut with `...` is a prefix of the whole.
const shows = (shown, whole) => shown === whole || (shown.endsWith('...') && whole.startsWith(shown.slice(0, -3)))
// `N: text` items joined by ` ⏎ `.
const numbered = (s) => s.split(' ⏎ ').map((it) => { const m = /^(\d+): (.*)$/.exec(it); return [Number(m[1]), m[2]] })

async function matchingLines(ledger, memId, pattern) {
  const answer = await recall(ledger, memId, { pattern })
  const m = /(\d+) matching lines?/.exec(answer)
  if (!m) throw new Error(`no count in ${answer.slice(0, 200)}`)
  return Number(m[1])
}

// ---- logs -----------------------------------------------------------------

// Each log fixture's own layout, read here without the outline's rules: the
// level of a line (as the log spells it), and which levels are errors.
const LOGS = {
  'ci-failure.log': { level: (l) => (/^\S+Z (error[[:]|##\[error\])/.test(l) ? 'error' : null), errors: ['error'] },
  'logcat-threadtime-api-25.txt': { level: (l) => (/^\d\d-\d\d [\d:.]+ +\d+ +\d+ ([VDIWEFA]) /.exec(l) || [])[1] || null, errors: ['E', 'F', 'A'] },
  'postgres-replication.log': { level: (l) => (/^\S+ [\d-]+ [\d:.]+ UTC \[\d+\] (ERROR|FATAL|WARNING):/.exec(l) || [])[1] || null, errors: ['ERROR', 'FATAL'] },
}

// A line's timestamp: ISO 8601 (optionally after a file name) or logcat's MM-dd;
// its key orders timestamps of one form (fractions padded).
function stampOf(line) {
  const m = /^(?:[\w.\-/:+@]+ )?(\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?Z?|\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?)(?![\w])/.exec(line)
  if (!m) return null
  const [whole, frac = ''] = m[1].replace('Z', '').replace(',', '.').split('.')
  return { text: m[1], key: whole.replace('T', ' ') + '.' + frac.padEnd(9, '0') }
}

async function checkLog(f, text, h, facts, args, ledger) {
  const rules = LOGS[f]
  expect(rules).toBeDefined() // a log fixture without its own rules here is unchecked
  const lines = linesOf(text)
  expect(h.summary).toBe(`read_file (path='${f}'): log, ${lines.length} lines`)
  // Levels and error lines, counted here over every line.
  const counts = new Map()
  const errors = []
  lines.forEach((l, i) => {
    const lv = rules.level(l)
    if (!lv) return
    counts.set(lv, (counts.get(lv) || 0) + 1)
    if (rules.errors.includes(lv)) errors.push(i + 1)
  })
  // The time range: the earliest and the latest timestamp, wherever they are.
  let min = null
  let max = null
  for (const l of lines) {
    const s = stampOf(l)
    if (!s) continue
    if (!min || s.key < min.key) min = s
    if (!max || s.key > max.key) max = s
  }
  const m = /^log: (\d+) lines(?:; time (.+?) \.\. (.+?))?(?:; levels (.+))?$/.exec(facts.get('schema'))
  expect(m).not.toBeNull()
  expect(Number(m[1])).toBe(lines.length)
  expect([m[2], m[3]]).toEqual([min.text, max.text])
  const stated = new Map(m[4].split(', ').map((it) => { const [name, n] = it.split(' '); return [name, Number(n)] }))
  expect(stated).toEqual(counts)
  facts.delete('schema')
  // Where the errors are.
  const where = errors.length <= 6 ? `at ${errors.join(', ')}` : `first at ${errors.slice(0, 3).join(', ')}; last at ${errors.slice(-3).join(', ')}`
  expect(facts.get('errors')).toBe(`${errors.length} ${errors.length === 1 ? 'line' : 'lines'}, ${where}`)
  facts.delete('errors')
  // The latest error in time (the last of equals), when it is not the last error line.
  let latest = null
  for (const n of errors) {
    const s = stampOf(lines[n - 1])
    if (s && (!latest || s.key >= latest.key)) latest = { n, key: s.key }
  }
  const latestN = latest && latest.n !== errors[errors.length - 1] ? latest.n : null
  expect(facts.has('latest error')).toBe(latestN !== null)
  if (latestN !== null) expect(facts.has('last error')).toBe(false)
  for (const [label, n] of [['first error', errors[0]], ['last error', errors[errors.length - 1]], ['latest error', latestN]]) {
    if (!facts.has(label)) continue
    const [[at, shown]] = numbered(facts.get(label))
    expect(at).toBe(n)
    expect(shows(shown, collapse(lines[n - 1]))).toBe(true)
    facts.delete(label)
  }
  // The last three non-blank lines.
  const tail = lines.map((l, i) => [i + 1, l]).filter(([, l]) => l.trim()).slice(-3)
  const shownTail = numbered(facts.get('last lines'))
  expect(shownTail.map(([n]) => n)).toEqual(tail.map(([n]) => n))
  shownTail.forEach(([n, s]) => expect(shows(s, collapse(lines[n - 1]))).toBe(true))
  facts.delete('last lines')
  // The calls it suggests: the lines around the last error, and a pattern
  // that finds exactly the error lines, here and through the recall tool.
  const [range, pattern] = args
  expect(range[0]).toBe('lines')
  const [a, b] = range[1].split('-').map(Number)
  expect(a <= errors[errors.length - 1] && errors[errors.length - 1] <= b && b <= lines.length).toBe(true)
  expect(pattern[0]).toBe('pattern')
  const re = new RegExp(pattern[1])
  expect(lines.flatMap((l, i) => (re.test(l) ? [i + 1] : []))).toEqual(errors)
  expect(await matchingLines(ledger, h.memId, pattern[1])).toBe(errors.length)
  expect(args).toHaveLength(2)
}

// ---- HTML -----------------------------------------------------------------

const decode = (s) => s
  .replace(/&#x([0-9a-f]+);/gi, (_, h) => String.fromCodePoint(parseInt(h, 16)))
  .replace(/&#(\d+);/g, (_, d) => String.fromCodePoint(Number(d)))
  .replace(/&(amp|lt|gt|quot|apos|nbsp);/g, (_, n) => ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' })[n])
const lineAt = (text, index) => text.slice(0, index).split('\n').length

async function checkHtml(f, text, h, facts, args, ledger) {
  const lines = linesOf(text)
  const title = collapse(decode(/<title>([\s\S]*?)<\/title>/i.exec(text)[1]))
  expect(facts.get('schema')).toBe(`HTML: ${lines.length} lines, title "${title}"`)
  facts.delete('schema')
  // Every h1-h3 with text, outside scripts and styles, in page order.
  const hidden = [...text.matchAll(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi)].map((m) => [m.index, m.index + m[0].length])
  const headings = [...text.matchAll(/<h([1-3])(?=[\s>])[^>]*>([\s\S]*?)<\/h\1\s*>/gi)]
    .filter((m) => !hidden.some(([a, b]) => a <= m.index && m.index < b))
    .map((m) => ({ text: collapse(decode(m[2].replace(/<[^>]*>/g, ''))), line: lineAt(text, m.index) }))
    .filter((x) => x.text)
  const m = /^(\d+) h1-h3: (.*)$/.exec(facts.get('headings'))
  expect(Number(m[1])).toBe(headings.length)
  const items = m[2].split(' | ')
  const more = /^\+(\d+) more$/.exec(items[items.length - 1])
  const listed = more ? items.slice(0, -1) : items
  listed.forEach((it, i) => expect(shows(it, headings[i].text)).toBe(true))
  expect(listed.length + (more ? Number(more[1]) : 0)).toBe(headings.length)
  facts.delete('headings')
  // The pattern, when suggested, finds the lines of those headings and no other.
  const headingLines = [...new Set(headings.map((x) => x.line))]
  const patternLines = lines.flatMap((l, i) => (/<h[1-3]/.test(l) ? [i + 1] : []))
  const pattern = args.find(([k]) => k === 'pattern')
  if (pattern) {
    expect(pattern[1]).toBe('<h[1-3]')
    expect(patternLines).toEqual(headingLines)
    expect(await matchingLines(ledger, h.memId, pattern[1])).toBe(headingLines.length)
  } else {
    expect(patternLines).not.toEqual(headingLines)
  }
  // The query it suggests is a word of its first headings or title that the page holds.
  const [key, word] = args[args.length - 1]
  expect(key).toBe('query')
  expect(word).toMatch(/^[\p{L}\p{N}]{4,}$/u)
  expect(text).toContain(word)
  expect([...headings.map((x) => x.text), title].some((t) => t.includes(word))).toBe(true)
}

// ---- CSV ------------------------------------------------------------------

function records(text) {
  const out = []
  let cur = ['']
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { cur[cur.length - 1] += '"'; i++ } else if (c === '"') quoted = false
      else cur[cur.length - 1] += c
    } else if (c === '"') quoted = true
    else if (c === ',') cur.push('')
    else if (c === '\n') { out.push(cur); cur = [''] } else if (c !== '\r') cur[cur.length - 1] += c
  }
  if (cur.length > 1 || cur[0]) out.push(cur)
  return out.filter((r) => r.length > 1 || r[0].trim())
}

async function checkCsv(f, text, h, facts, args, ledger) {
  const [header, ...rows] = records(text)
  expect(facts.get('schema')).toBe(`CSV: ${rows.length} rows x ${header.length} columns, header: ${header.join(',')}`)
  facts.delete('schema')
  const [[k, range]] = args
  expect(k).toBe('lines')
  const [a, b] = range.split('-').map(Number)
  expect(a).toBe(2)
  expect(b).toBe(Math.min(51, linesOf(text).length))
  // The call reads those rows, numbered as the recall tool numbers lines.
  expect(await recall(ledger, h.memId, { lines: range })).toBe(linesOf(text).slice(a - 1, b).map((l, i) => `${a + i}:${l}`).join('\n'))
}

// ---- JSON -----------------------------------------------------------------

// A key as the stub writes it: bare where RFC 9535's shorthand allows, else bracketed.
const label = (k) => (/^[A-Za-z_\u0080-\u{10ffff}][A-Za-z0-9_\u0080-\u{10ffff}]*$/u.test(k) && !/[\u0080-\u009f\u2028\u2029]/.test(k)
  ? k
  : `['${k.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}']`)
const kindOf = (v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v === 'string' ? 'str' : typeof v === 'number' ? 'num' : 'bool')
const kindSize = (v) => (Array.isArray(v) ? `array[${v.length}]` : kindOf(v) === 'object' ? `object{${Object.keys(v).length}}` : kindOf(v))
const isObj = (v) => kindOf(v) === 'object'

// The value at a path the stub wrote: `$.a['b-c'][0]`.
function at(doc, p) {
  let v = doc
  for (const m of p.slice(1).matchAll(/\.([^.[]+)|\['((?:[^'\\]|\\.)*)'\]|\[(\d+)\]/g)) {
    v = m[3] !== undefined ? v[Number(m[3])] : v[m[1] ?? m[2].replace(/\\(.)/g, '$1')]
  }
  return v
}

// Columns over records: `name:kinds k/N` in first-seen order (kinds by count,
// `mixed` past two), then `+M more` when some do not fit.
function checkColumns(list, recs, total) {
  const cols = new Map()
  for (const r of recs) {
    for (const [k, v] of Object.entries(r)) {
      if (!cols.has(k)) cols.set(k, { n: 0, kinds: new Map() })
      const c = cols.get(k)
      c.n++
      c.kinds.set(kindOf(v), (c.kinds.get(kindOf(v)) || 0) + 1)
    }
  }
  expect(total).toBe(cols.size)
  const items = list.split(',')
  const more = /^\+(\d+) more$/.exec(items[items.length - 1])
  const shown = more ? items.slice(0, -1) : items
  expect(shown.length + (more ? Number(more[1]) : 0)).toBe(cols.size)
  const order = [...cols.keys()].map(label)
  let last = -1
  for (const it of shown) {
    const m = /^(.+?):([a-z|]+)(?: (\d+)\/(\d+))?$/.exec(it)
    const name = [...cols.keys()].find((k) => label(k) === m[1])
    const c = cols.get(name)
    expect(order.indexOf(m[1])).toBeGreaterThan(last)
    last = order.indexOf(m[1])
    const kinds = [...c.kinds].sort((a, b) => b[1] - a[1]).map(([k]) => k)
    expect(m[2]).toBe(kinds.length > 2 ? 'mixed' : kinds.join('|'))
    expect(m[3] ? [Number(m[3]), Number(m[4])] : [recs.length, recs.length]).toEqual([c.n, recs.length])
  }
  return cols
}

// One node's description, as the schema and data lines write it.
function checkNode(v, desc) {
  let m
  if ((m = /^array\[(\d+)\] of records, (\d+) columns: (.*)$/.exec(desc))) {
    expect(Number(m[1])).toBe(v.length)
    checkColumns(m[3], v, Number(m[2]))
  } else if ((m = /^object\{(\d+)\} of records(?: keyed like '([^']*)' \('([^']*)' \+ (\d+) digits\)|, keys like (.*?)); (\d+) fields: (.*)$/.exec(desc))) {
    const keys = Object.keys(v)
    expect(Number(m[1])).toBe(keys.length)
    if (m[2] !== undefined) {
      expect(m[2]).toBe(keys[0])
      for (const k of keys) expect(k).toMatch(new RegExp(`^${m[3].replace(/[#]/g, '\\$&')}\\d{${m[4]}}$`))
    } else {
      expect(m[5]).toBe(keys.slice(0, 3).map((k) => `'${k.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`).join(','))
    }
    checkColumns(m[7], Object.values(v), Number(m[6]))
  } else if ((m = /^object\{(\d+)\} of ([a-z,]+), keys like (.*)$/.exec(desc))) {
    const keys = Object.keys(v)
    expect(Number(m[1])).toBe(keys.length)
    expect(new Set(Object.values(v).map(kindOf))).toEqual(new Set(m[2].split(',')))
    expect(m[3]).toBe(keys.slice(0, 3).map((k) => `'${k}'`).join(','))
  } else if ((m = /^object\{(\d+)\} \[(.*)\]$/.exec(desc))) {
    const entries = Object.entries(v)
    expect(Number(m[1])).toBe(entries.length)
    const items = m[2].split(/,(?=[^,]*:|\+)/)
    const more = /^\+(\d+) more$/.exec(items[items.length - 1])
    const shown = more ? items.slice(0, -1) : items
    shown.forEach((it, i) => expect(it).toBe(`${label(entries[i][0])}:${kindSize(entries[i][1])}`))
    expect(shown.length + (more ? Number(more[1]) : 0)).toBe(entries.length)
  } else {
    throw new Error(`a description this test does not check: ${desc}`)
  }
}

async function checkJson(f, text, h, facts, args, ledger) {
  const doc = JSON.parse(text)
  expect(h.summary).toBe(`read_file (path='${f}'): JSON ${Array.isArray(doc) ? 'array' : 'object'}`)
  for (const labelName of ['schema', 'data']) {
    if (!facts.has(labelName)) continue
    const line = facts.get(labelName)
    const m = /^(\$\S*): (.*)$/.exec(line)
    if (m) {
      // A path opens the line: the node there is the one described, and
      // above it (on the schema line) are only one-key wrappers.
      checkNode(at(doc, m[1]), m[2])
    } else {
      checkNode(doc, line)
    }
    facts.delete(labelName)
  }
  // The suggested path resolves, to the value it names.
  const [[k, p]] = args
  expect(k).toBe('json_path')
  expect(JSON.parse(ledger.fetchSync(h.memId, { jsonPath: p }))).toEqual(at(doc, p))
  expect(args).toHaveLength(1)
}

// ---- every fixture --------------------------------------------------------

describe('every fact of every real payload\'s stub is checked against the whole payload', () => {
  const ledger = new Ledger({ maxBytes: 2 ** 30 })

  test('the fixtures cover each kind of payload', () => {
    const kinds = FILES.map((f) => record(ledger, f).summary.replace(/^[^:]*\): /, '').replace(/, \d+ lines$/, ''))
    for (const k of ['JSON array', 'JSON object', 'log', 'CSV table', 'HTML page']) expect(kinds).toContain(k)
  })

  test.each(FILES)('%s', async (f) => {
    const text = read(f)
    const h = record(ledger, f)
    const { facts, args, memId } = parse(h.stub)
    expect(memId).toBe(h.memId)
    const kind = h.summary.replace(/^[^:]*\): /, '')
    const check = kind.startsWith('JSON') ? checkJson : kind.startsWith('log, ') ? checkLog : kind === 'HTML page' ? checkHtml : kind === 'CSV table' ? checkCsv : null
    expect(check).not.toBeNull()
    await check(f, text, h, facts, args, ledger)
    expect([...facts.keys()]).toEqual([]) // no line left unchecked
  })
})

describe('stub v2 on real payloads: what the issue found wrong', () => {
  const ledger = new Ledger()
  const line = (stub, name) => stub.split('\n').find((l) => l.startsWith(`${name}: `))

  test('an array of records lists each column with the kinds of its values', () => {
    const h = record(ledger, 'emojibase-ja-data.json')
    expect(h.schema).toContain(',tags:array 1923/1949,') // hidden by v1's first five keys of row 0
    expect(h.schema).toContain(',skins:array 330/1949,') // an array column, not one to filter as a string
    const g = record(ledger, 'octokit-paginate-issues.json')
    expect(g.schema).toContain(',response:mixed,') // a recorded response is an array, an object or a string: not a column to filter as one kind
  })

  test('a page with 425 headings says 425, and the pattern finds every one', () => {
    const h = record(ledger, 'rustc-lints-warn-by-default.html')
    expect(line(h.stub, 'headings')).toMatch(/^headings: 425 h1-h3: Keyboard shortcuts \| .* \| \+\d+ more$/)
    expect(h.stub).toContain('pattern="<h[1-3]"')
  })

  test('a log whose last lines are not its latest: the range is the earliest and latest timestamp', () => {
    const text = read('postgres-replication.log')
    const lines = linesOf(text)
    const last = stampOf(lines[lines.length - 1]).text
    const h = record(ledger, 'postgres-replication.log')
    expect(h.schema).toMatch(/; time \S+ \S+ \.\. \S+ \S+;/)
    expect(h.schema).not.toContain(`.. ${last};`) // the replica's last line is not the log's latest
    expect(h.stub).toContain('pattern="ERROR|FATAL"')
  })

  test('logcat: one-letter priorities are levels, E lines are errors', () => {
    const h = record(ledger, 'logcat-threadtime-api-25.txt')
    expect(h.schema).toMatch(/; levels E 3, W \d+, I \d+, D \d+, V \d+$/)
    expect(line(h.stub, 'errors')).toBe('errors: 3 lines, at 17, 18, 19')
    expect(h.stub).toContain('pattern=" E "')
  })

  test('every stub is small, one line per field, no indentation runs or escaped tabs in its preview', () => {
    for (const f of FILES) {
      const h = record(ledger, f)
      expect(Array.from(h.stub).length).toBeLessThanOrEqual(1000)
      expect(h.stub.split('\n')[0]).toBe('[symfonic.tool_memory v2]')
      for (const l of h.stub.split('\n')) expect(l).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/) // eslint-disable-line no-control-regex
      expect(h.preview).not.toMatch(/ {2}|\\t/)
      expect(h.stub.split('\n').pop()).toMatch(/^To read more: recall_tool_result\(mem_id="trm_[0-9a-f]{12}", /)
    }
  })

  test('byte-identical in another process', () => {
    const here = FILES.map((f) => record(new Ledger(), f).stub)
    const script = `const { Ledger } = require('.'); const fs = require('fs'); process.stdout.write(JSON.stringify(${JSON.stringify(FILES)}.map((f) => new Ledger().recordSync({ toolCallId: 'call_' + f, toolName: 'read_file', toolArgs: { path: f }, content: fs.readFileSync('fixtures/payloads/' + f, 'utf8') }).stub)))`
    const there = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: path.join(__dirname, '..'), encoding: 'utf8', maxBuffer: 1 << 24 }))
    expect(there).toEqual(here)
  })
})

describe('stubs already stored are never rewritten', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'symfonic-stub-stored-'))
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
  const sql = (db, q) => execFileSync('sqlite3', [db, q], { encoding: 'utf8' }).trim()
  const q = (s) => `'${s.replace(/'/g, "''")}'`
  // A row as an earlier build wrote it, sealed as the store seals what it writes.
  const rewrite = (db, row) => {
    const seal = hooks.load().binding.__rowSealForTest(row, false)
    sql(db, `UPDATE entries SET stub = ${q(row.stub)}, schema = ${q(row.schema)}, summary = ${q(row.summary)}, preview = ${q(row.preview)}, seal = ${q(seal)} WHERE mem_id = '${row.memId}'`)
  }

  test('a store row written as v1 is served and re-rendered as v1, and its offloaded stub is recognised, not rewritten', async () => {
    const db = path.join(dir, 'v1.db')
    const content = read('ci-failure.log')
    const first = new Ledger({ store: `sqlite:${db}` })
    const h = await first.record({ toolCallId: 'c1', toolName: 'read_log', content })
    const head = (n) => content.slice(0, n * 2).replace(/\r\n|[\r\n]/g, ' ').slice(0, n).trim()
    const v1 = (n) => [
      '[symfonic.tool_memory v1]',
      'tool=read_log call_id=c1',
      `size_original=${h.sizeChars} chars, archived as mem=${h.memId}`,
      'schema: text: lines=217',
      `summary: read_log: text result, first line: ${content.split('\n')[0]}`,
      `preview: ${head(n)}`,
      `To re-expand: call recall_tool_result(mem_id='${h.memId}', format="full").  For a slice, pass query=<substring>, offset/max_chars=<range>, or json_path=<path> instead of format="full".`,
    ].join('\n')
    const row = { ...h, stub: v1(200), schema: 'text: lines=217', summary: `read_log: text result, first line: ${content.split('\n')[0]}`, preview: head(200) }
    rewrite(db, row)
    await first.close()

    const ledger = new Ledger({ store: `sqlite:${db}` })
    expect(await ledger.handle(h.memId)).toEqual(row)
    expect(await ledger.stub(h.memId)).toBe(v1(200))
    expect(await ledger.stub(h.memId, { previewChars: 2000 })).toBe(v1(2000))
    // An offloaded v1 stub read back from a checkpoint: verified against the
    // ledger, recognised as compacted, sent unchanged.
    const offloaded = new ToolMessage({ content: v1(2000), tool_call_id: 'c1', name: 'read_log', response_metadata: { tool_memory: { memId: h.memId, compacted: true, offloaded: true, previewChars: 2000 } } })
    const list = [new HumanMessage('go'), new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'read_log', args: {}, type: 'tool_call' }] }), offloaded, new AIMessage('read it'), new HumanMessage('next')]
    const out = await compactToolMessages(list, ledger, { compactAfter: 'seen', keepLastN: 0, sizeChars: 100, evictChars: 1000 })
    expect(out[2].content).toBe(v1(2000))
    await ledger.close()
  })

  test('a v2 row written by an earlier build keeps its facts at any preview length', async () => {
    const db = path.join(dir, 'v2.db')
    const content = read('rustc-lints-warn-by-default.html')
    const first = new Ledger({ store: `sqlite:${db}` })
    const h = await first.record({ toolCallId: 'c2', toolName: 'fetch_page', content })
    const fresh2000 = await first.stub(h.memId, { previewChars: 2000 })
    // Its headings line as the build before the fix wrote it.
    const old = h.stub.replace(/^headings: .*$/m, 'headings: Keyboard shortcuts | The rustc book | Warn-by-default Lints | +49 more')
    expect(old).not.toBe(h.stub)
    rewrite(db, { ...h, stub: old })
    await first.close()

    const ledger = new Ledger({ store: `sqlite:${db}` })
    expect(await ledger.stub(h.memId)).toBe(old)
    const long = await ledger.stub(h.memId, { previewChars: 2000 })
    expect(long).toBe(fresh2000.replace(/^headings: .*$/m, 'headings: Keyboard shortcuts | The rustc book | Warn-by-default Lints | +49 more'))
    expect(long.split('\n').filter((l) => !l.startsWith('preview: '))).toEqual(old.split('\n').filter((l) => !l.startsWith('preview: ')))
    await ledger.close()
  })
})
