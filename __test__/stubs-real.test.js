'use strict'
// Stub v2 on real payloads (fixtures/payloads, with their sources and
// licenses): each stub carries the facts a model needs before it recalls,
// computed here independently from the payload, stays within about 900
// characters, is byte-identical in another process, and a stub recorded as
// v1 (an offload checkpoint's) is still recognised and never rewritten.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { execFileSync } = require('node:child_process')
const { Ledger } = require('..')
const { compactToolMessages } = require('../langchain')
const hooks = require('./support/hooks.js')
const { AIMessage, HumanMessage, ToolMessage } = require('@langchain/core/messages')

const DIR = path.join(__dirname, '..', 'fixtures', 'payloads')
const read = (f) => fs.readFileSync(path.join(DIR, f), 'utf8')
const FILES = ['emojibase-ja-data.json', 'octokit-paginate-issues.json', 'cldr-ja-languages.json', 'tau-retail-orders-120.json', 'mdn-l10n-css.json', 'rustdoc-what-is-rustdoc.html', 'distro-info-ubuntu.csv', 'ci-failure.log']
const record = (ledger, f) => ledger.recordSync({ toolCallId: `call_${f}`, toolName: 'read_file', toolArgs: { path: f }, content: read(f) })
const line = (stub, label) => stub.split('\n').find((l) => l.startsWith(`${label}: `))

describe('stub v2 carries the facts of each real payload kind', () => {
  const ledger = new Ledger()

  test('an array of records: the union of columns over all rows, with counts where rows lack one', () => {
    const rows = JSON.parse(read('emojibase-ja-data.json'))
    const counts = new Map()
    for (const r of rows) for (const k of Object.keys(r)) counts.set(k, (counts.get(k) || 0) + 1)
    const h = record(ledger, 'emojibase-ja-data.json')
    expect(h.schema.startsWith(`array[${rows.length}] of records, ${counts.size} columns: `)).toBe(true)
    for (const [k, c] of counts) expect(h.schema).toContain(c === rows.length ? k : `${k} ${c}/${rows.length}`)
    expect(h.schema).toContain('tags 1923/1949') // the issue's example: hidden by v1's first five keys of row 0
    const calls = JSON.parse(read('octokit-paginate-issues.json'))
    const g = record(ledger, 'octokit-paginate-issues.json')
    expect(g.schema).toBe(`array[${calls.length}] of records, ${Object.keys(calls[0]).length} columns: ${Object.keys(calls[0]).join(',')}`)
    expect(g.schema).toContain(',response,')
  })

  test('one-key wrappers: the path of the wide node below them', () => {
    const doc = JSON.parse(read('cldr-ja-languages.json'))
    const langs = doc.main.ja.localeDisplayNames.languages
    const h = record(ledger, 'cldr-ja-languages.json')
    expect(h.schema).toBe('$.main.ja: object{2} [identity:object{1},localeDisplayNames:object{1}]')
    expect(line(h.stub, 'data')).toBe(`data: $.main.ja.localeDisplayNames.languages: object{${Object.keys(langs).length}} of str, keys like 'aa','ab','ace'`)
    const path = /json_path="([^"]+)"/.exec(h.stub)[1]
    expect(path).toBe('$.main.ja.localeDisplayNames.languages.aa')
    expect(ledger.fetchSync(h.memId, { jsonPath: path })).toBe(JSON.stringify(langs.aa))
  })

  test('a map of records keyed by id: the key format, the fields, one example path that resolves', () => {
    const orders = JSON.parse(read('tau-retail-orders-120.json'))
    const first = Object.keys(orders)[0]
    const fields = Object.keys(orders[first])
    const h = record(ledger, 'tau-retail-orders-120.json')
    expect(h.schema).toBe(`object{${Object.keys(orders).length}} of records keyed like '${first}' ('#W' + 7 digits); ${fields.length} fields: ${fields.join(',')}`)
    expect(first).toMatch(/^#W\d{7}$/)
    const path = JSON.parse(/json_path=("(?:[^"\\]|\\.)*")/.exec(h.stub)[1])
    expect(path).toBe(`$['${first}'].order_id`)
    expect(ledger.fetchSync(h.memId, { jsonPath: path })).toBe(JSON.stringify(orders[first].order_id))
  })

  test('keys that need quoting are written as RFC 9535 segments, in the stub and in not-found messages', () => {
    const doc = JSON.parse(read('mdn-l10n-css.json'))
    expect(Object.keys(doc).slice(0, 2)).toEqual(['""', '". "'])
    const h = record(ledger, 'mdn-l10n-css.json')
    expect(h.schema).toContain(`keys like '""','". "','absoluteLength'`)
    expect(h.schema).toContain("['en-US'],fr,") // a field with a dash is bracketed, a plain one is not
    expect(h.schema).toContain("['zh-CN']")
    const answer = ledger.fetchSync(h.memId, { jsonPath: `$['". "'].nope` })
    expect(answer).toContain(`not found: '$['". "']' is an object with ${Object.keys(doc['". "']).length} keys`)
  })

  test('a CI failure log: line count, time range, levels with counts, where the errors are, the last lines', () => {
    const text = read('ci-failure.log')
    const lines = text.replace(/\n$/, '').split('\n')
    const stamp = (l) => /^(\S+Z) /.exec(l)[1]
    // Error lines, found here by their own rule: a message starting `error[` or
    // `error:`, or the runner's `##[error]` marker.
    const errors = lines.flatMap((l, i) => (/^\S+Z (error[[:]|##\[error\])/.test(l) ? [i + 1] : []))
    expect(errors.length).toBeGreaterThan(2)
    expect(errors[errors.length - 1]).toBeGreaterThan(lines.length - 10) // the failure is near the end
    const h = record(ledger, 'ci-failure.log')
    expect(h.summary).toBe(`read_file (path='ci-failure.log'): log, ${lines.length} lines`)
    expect(h.schema).toBe(`log: ${lines.length} lines; time ${stamp(lines[0])} .. ${stamp(lines[lines.length - 1])}; levels error ${errors.length}`)
    expect(line(h.stub, 'errors')).toBe(`errors: ${errors.length} lines, at ${errors.join(', ')}`)
    expect(line(h.stub, 'first error')).toContain(`${errors[0]}: ${lines[errors[0] - 1].slice(0, 40)}`)
    const tail = line(h.stub, 'last lines')
    expect(tail).toContain(`${lines.length}: ${lines[lines.length - 1]}`)
    expect(tail).toContain(`${errors[errors.length - 1]}: `)
    expect(h.stub).toContain(`lines="${lines.length - 12}-${lines.length}"`)
  })

  test('CSV: rows and columns and the header; HTML: the title and headings', () => {
    const csv = read('distro-info-ubuntu.csv').trim().split('\n')
    const h = record(ledger, 'distro-info-ubuntu.csv')
    expect(h.schema).toBe(`CSV: ${csv.length - 1} rows x ${csv[0].split(',').length} columns, header: ${csv[0]}`)
    const html = read('rustdoc-what-is-rustdoc.html')
    const title = /<title>([^<]*)<\/title>/.exec(html)[1]
    const g = record(ledger, 'rustdoc-what-is-rustdoc.html')
    expect(g.schema).toBe(`HTML: ${html.split('\n').length - (html.endsWith('\n') ? 1 : 0)} lines, title "${title}"`)
    expect(line(g.stub, 'headings')).toContain('What is rustdoc? | Basic usage |')
    expect(g.preview).not.toMatch(/[<>]\w/) // visible text, not markup
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

describe('stubs recorded as v1 stay v1', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'symfonic-stub-v1-'))
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
  const sql = (db, q) => execFileSync('sqlite3', [db, q], { encoding: 'utf8' }).trim()

  test('a store row written as v1 is served and re-rendered as v1, and its offloaded stub is recognised, not rewritten', async () => {
    const db = path.join(dir, 'v1.db')
    const content = read('ci-failure.log')
    const first = new Ledger({ store: `sqlite:${db}` })
    const h = await first.record({ toolCallId: 'c1', toolName: 'read_log', content })
    // The row as a release before v2 wrote it: the v1 stub, schema and summary.
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
    const q = (s) => `'${s.replace(/'/g, "''")}'`
    const row = { ...h, stub: v1(200), schema: 'text: lines=217', summary: `read_log: text result, first line: ${content.split('\n')[0]}`, preview: head(200) }
    // Sealed as the store seals what it writes: the row reads back as sound, not as an edit.
    const seal = hooks.load().binding.__rowSealForTest(row, false)
    sql(db, `UPDATE entries SET stub = ${q(row.stub)}, schema = ${q(row.schema)}, summary = ${q(row.summary)}, preview = ${q(row.preview)}, seal = ${q(seal)} WHERE mem_id = '${h.memId}'`)
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
})
