'use strict'
// Issue 44's reproductions, sent as a model sends them: through the
// recall_tool_result tool (and `recall()`), on the real payloads of
// fixtures/payloads where the payload has one of its shape there.
// The issue's own payloads (GitHub's dereferenced OpenAPI file, SPDX, MDN's
// browser-compat-data, loghub's Zookeeper and Apache logs, typescript.js)
// are not committed (size, or a license that forbids it); for those a
// minimal document of the same shape is built here, and each test says so.
// No answer here is wrong, and none is silent.

const fs = require('node:fs')
const path = require('node:path')
const { Ledger, recall } = require('..')
const { createRecallToolResultTool } = require('../langchain')

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'payloads')
const read = (f) => fs.readFileSync(path.join(FIXTURES, f), 'utf8')

const ledger = new Ledger({ maxBytes: 2 ** 30 })
const tool = createRecallToolResultTool(ledger)
const ask = (args) => tool.invoke(args)
const ids = {}
let n = 0
const put = async (content) => (await ledger.record({ toolCallId: `honest-${n++}`, toolName: 'read', content })).memId

beforeAll(async () => {
  for (const [name, file] of [
    ['orders', 'tau-retail-orders-120.json'],
    ['emoji', 'emojibase-ja-data.json'],
    ['log', 'ci-failure.log'],
    ['cldr', 'cldr-ja-languages.json'],
    ['html', 'rustdoc-what-is-rustdoc.html'],
  ]) {
    ids[name] = await put(read(file))
  }
})

describe('wrong or misleading answers (items 1-8)', () => {
  test('1. a filter explanation never claims absence from a capped look', async () => {
    // GitHub's dereferenced OpenAPI file, in its shape: 11,397 operations
    // under $.paths.*.*, one past the 10,000th documenting a 402 whose
    // description differs in case from the filter's.
    const paths = {}
    for (let p = 0; p < 1140; p++) {
      const ops = {}
      for (let m = 0; m < 10; m++) {
        const code = p * 10 + m === 11_397 - 1 ? '402' : '422'
        ops[`m${m}`] = { summary: 's', responses: { [code]: { description: 'Payment required' } } }
      }
      paths[`/p${p}`] = ops
    }
    const id = await put(JSON.stringify({ paths }))
    expect(await ask({ mem_id: id, json_path: '$.paths.*.*[?@["402"].description == "Payment Required"]' })).toBe('[]')
    expect(await ask({ mem_id: id, json_path: '$.paths.*.*[?@["402"].description == "Payment required"]', format: 'count' })).toBe(
      `[recall: json_path '$.paths.*.*[?@["402"].description == "Payment required"]' selects 1 node]`,
    )
  })

  test('2. a pattern meant as text says how often the text occurs, and how to find it', async () => {
    const log = read('ci-failure.log')
    const lines = log.split('\n')
    const holding = (t) => lines.filter((l) => l.includes(t)).length
    // `[error]`, copied from a log, is a character class: far more lines match.
    const a = await ask({ mem_id: ids.log, pattern: '[error]', format: 'count' })
    expect(a).toContain(`; the text '[error]' as written is on ${holding('[error]')} line: `)
    expect(a).toContain('so for the text pass query="[error]" or pattern="\\\\[error\\\\]"]')
    // `error[E0308]` is `error` then one of E, 0, 3, 8: nothing matches.
    const b = await ask({ mem_id: ids.log, pattern: 'error[E0308]' })
    expect(b).toMatch(/^\[recall: no match for pattern 'error\[E0308\]' in trm_[0-9a-f]{12}; the text 'error\[E0308\]' as written is on 2 lines: /)
    expect(holding('error[E0308]')).toBe(2)
    // The pattern it names finds exactly those lines.
    const c = await ask({ mem_id: ids.log, pattern: 'error\\[E0308\\]', format: 'count' })
    expect(c).toMatch(/^\[recall: 2 matching lines for pattern/)
    // A pattern meant as a regex gets no note.
    expect(await ask({ mem_id: ids.log, pattern: 'error\\[E\\d+\\]', format: 'count' })).not.toContain('as written')
  })

  test('3. \\d, (?i) and \\b in match()/search() are named with their I-Regexp form', async () => {
    const a = await ask({ mem_id: ids.orders, json_path: '$[?match(@.order_id, "#W\\\\d{7}")]' })
    expect(a).toContain("selects nothing: match() pattern '#W\\d{7}' is not an I-Regexp (RFC 9485, the regular expressions of RFC 9535 filters), so it matches nothing: \\d (write [0-9])]")
    const b = await ask({ mem_id: ids.orders, json_path: '$[?search(@.status, "(?i)PENDING")]' })
    expect(b).toContain('(?… flags such as (?i) (I-Regexp has none: spell both cases, as [Ee]rror)')
    // The form it names matches every order (RFC 9535 semantics unchanged).
    expect(await ask({ mem_id: ids.orders, json_path: '$[?match(@.order_id, "#W[0-9]{7}")]', format: 'count' })).toBe(
      `[recall: json_path '$[?match(@.order_id, "#W[0-9]{7}")]' selects 120 nodes]`,
    )
  })

  test('4. json_path with a small max_chars says the value was cut, and how to read on', async () => {
    const text = read('cldr-ja-languages.json')
    const p = '$.main.ja.localeDisplayNames.languages.en'
    const whole = JSON.parse(await ask({ mem_id: ids.cldr, json_path: p }))
    const a = await ask({ mem_id: ids.cldr, json_path: p, max_chars: 1 })
    const m = /^\[recall: json_path '(.*)' is a string of (\d+) chars as written, cut at max_chars=1: its first char follows; for the rest pass offset=(\d+) with max_chars, without json_path\]\n"$/.exec(a)
    expect(m).not.toBeNull()
    expect(Number(m[2])).toBe(JSON.stringify(whole).length)
    const rest = await ask({ mem_id: ids.cldr, offset: Number(m[3]), max_chars: Number(m[2]) - 1 })
    expect('"' + rest).toBe(JSON.stringify(whole))
    expect([...text].slice(Number(m[3]), Number(m[3]) + Number(m[2]) - 1).join('')).toBe(rest)
  })

  test('5. a log out of time order names its latest error by time, and says so', async () => {
    // loghub's Zookeeper log, in its shape (loghub's license forbids committing it).
    const line = (t, level, what) => `2015-07-29 ${t},747 - ${level.padEnd(5)} [QuorumPeer[myid=1]/0:0:0:0:0:0:0:0:2181:Learner@233] - ${what}`
    const lines = []
    for (let i = 0; i < 20; i++) lines.push(line(`17:${10 + i}:00`, 'INFO', 'Notification time out: 3200'))
    lines.push(line('23:44:28', 'ERROR', 'Unexpected exception causing shutdown while sock still open'))
    for (let i = 0; i < 20; i++) lines.push(line(`18:${10 + i}:00`, 'INFO', 'Received connection request'))
    lines.push(line('19:21:26', 'ERROR', 'Connection broken for id 188978561024'))
    for (let i = 0; i < 5; i++) lines.push(line(`19:${30 + i}:00`, 'WARN', 'Send worker leaving thread'))
    const id = await put(lines.join('\n') + '\n')
    const stub = await ledger.stub(id)
    expect(stub).toContain('\nlatest error: 21: 2015-07-29 23:44:28,747 - ERROR')
    expect(stub).not.toContain('\nlast error:')
    expect(stub).toContain('time 2015-07-29 17:10:00,747 .. 2015-07-29 23:44:28,747')
  })

  test('6. a key with dots written in dotted form is read', async () => {
    // SPDX's license list and MDN's browser versions, in their shape.
    const id = await put(JSON.stringify({ 'GPL-3.0-only': { name: 'GNU General Public License v3.0 only' }, MIT: { name: 'MIT License' } }))
    expect(await ask({ mem_id: id, json_path: '$.GPL-3.0-only.name' })).toBe('"GNU General Public License v3.0 only"')
    expect(await ask({ mem_id: id, json_path: '$.GPL-3.0-only.name', format: 'paths' })).toBe(`[["$['GPL-3.0-only']['name']","GNU General Public License v3.0 only"]]`)
    const mdn = await put(JSON.stringify({ data: { 'css-grid': { stats: { safari: { 15.4: 'y', '16.0': 'y' } } } } }))
    expect(await ask({ mem_id: mdn, json_path: '$.data.css-grid.stats.safari.15.4' })).toBe('"y"')
  })

  test('7. a filter one level too deep says how to filter the parent', async () => {
    // MDN's browser-compat-data, in its shape (20 MB; not in fixtures).
    const api = {}
    for (const [name, experimental] of [['AbortSignal', false], ['Serial', true], ['USB', true]]) {
      api[name] = { __compat: { status: { experimental, standard_track: true, deprecated: false } } }
    }
    const id = await put(JSON.stringify({ api }))
    const a = await ask({ mem_id: id, json_path: '$.api.*.__compat.status[?@.experimental==true]' })
    expect(a).toBe(
      "[recall: json_path '$.api.*.__compat.status[?@.experimental==true]' selects nothing: none of the 9 children of '$.api.*.__compat.status' has @.experimental; '$.api.*.__compat.status' itself has @.experimental: a filter tests the children of what it follows, so filter their parent: $.api[?@.__compat.status.experimental==true]]",
    )
    const fixed = JSON.parse(await ask({ mem_id: id, json_path: '$.api[?@.__compat.status.experimental==true]', format: 'paths' }))
    expect(fixed.map(([p]) => p)).toEqual(["$['api']['Serial']", "$['api']['USB']"])
  })

  test('8. offset -500 reads the last 500; with a search it is named; format beside a search is not dropped', async () => {
    const log = read('ci-failure.log')
    expect(await ask({ mem_id: ids.log, offset: -500 })).toBe([...log].slice(-500).join(''))
    expect(await ask({ mem_id: ids.log, pattern: 'error', offset: -5 })).toBe(
      '[recall: offset=-5 is negative: with pattern it is where an answer said to read on, 0 or more (a negative offset alone reads the last characters); nothing was read]',
    )
    expect(await ask({ mem_id: ids.log, pattern: 'error', format: 'full' })).toBe(
      "[recall: format='full' (the whole result) does not go with pattern, which answers the matching lines; send pattern alone, or format='full' alone; nothing was read]",
    )
    expect(await ask({ mem_id: ids.log, pattern: 'error', format: 'paths' })).toBe("[recall: format='paths' (where each node is) applies to json_path; nothing was read]")
  })
})

describe('dead ends (items 9-11)', () => {
  test('9. format count with json_path counts the nodes', async () => {
    const all = JSON.parse(read('emojibase-ja-data.json'))
    expect(await ask({ mem_id: ids.emoji, json_path: '$[*].label', format: 'count' })).toBe(`[recall: json_path '$[*].label' selects ${all.length} nodes]`)
    expect(await ask({ mem_id: ids.emoji, json_path: '$', format: 'count' })).toBe(`[recall: json_path '$' selects 1 node, an array of ${all.length} elements]`)
  })

  test('10. listing keys names the way that works', async () => {
    const way = "JSONPath selects values, not keys: format='paths' answers each value beside its path, which ends with its key"
    expect(await ask({ mem_id: ids.orders, json_path: '$.*~' })).toContain(`'~' (a key's name) is not JSONPath; ${way} (json_path='$.*' with format='paths')`)
    expect(await ask({ mem_id: ids.orders, json_path: 'keys($)' })).toContain(`JSONPath has no keys(); ${way} (json_path='$.*' with format='paths')`)
    expect(await ask({ mem_id: ids.orders, json_path: '$ | keys' })).toContain(`JSONPath has no '| keys'; ${way} (json_path='$.*' with format='paths')`)
    // The way it names lists every key.
    const keys = JSON.parse(await ask({ mem_id: ids.orders, json_path: '$.*.order_id', format: 'paths' })).length
    expect(keys).toBe(120)
  })

  test('11. operator hints steer right: =~ to search(), contains/in to a nested filter, = in parentheses to ==', async () => {
    expect(await ask({ mem_id: ids.orders, json_path: "$[?@.status =~ 'pend']" })).toContain("'=~' is not an operator: a regular expression is search(@.name, 'regex')")
    expect(await ask({ mem_id: ids.orders, json_path: "$[?@.items contains 'x']" })).toContain(
      "JSONPath has no 'contains' operator: to test the elements of an array use a filter inside the filter, as [?@.groups[?@ == 'admin']]",
    )
    expect(await ask({ mem_id: ids.orders, json_path: "$[?'pending' in @.status]" })).toContain("JSONPath has no 'in' operator")
    expect(await ask({ mem_id: ids.orders, json_path: "$[?(@.status = 'pending')]" })).toContain("'=' is not an operator: compare with '=='")
  })
})

describe('the tool and its arguments (items 12, 13, 19)', () => {
  test('12. the definition describes its arguments in a few words, shorter than before', async () => {
    const { convertToOpenAITool } = require('@langchain/core/utils/function_calling')
    const def = JSON.stringify(convertToOpenAITool(tool))
    const { description } = convertToOpenAITool(tool).function
    for (const words of ['lines "120-180"', 'pattern: line regex, no look-around', 'query: text', 'offset: read on', 'count|paths|raw', 'RFC 9535 (I-Regexp)']) {
      expect(description).toContain(words)
    }
    // 602 characters before it said any of this (docs/context-economics.md).
    expect(def.length).toBeLessThan(602)
  })

  test('13. a full read of a long payload names its page and a narrower read', async () => {
    const doc = { paths: Object.fromEntries(Array.from({ length: 4000 }, (_, i) => [`/p${i}`, { get: { summary: `op ${i}` } }])) }
    const id = await put(JSON.stringify(doc))
    const a = await ask({ mem_id: id, format: 'full' })
    expect(a).toMatch(/; continue with offset=\d+ \(page 1 of about \d+ at this size; to read a part, pass json_path \(the stub shows what is there\)\)\]$/)
  })

  test("13. the HTML stub suggests a query the page holds, not a placeholder", async () => {
    const stub = await ledger.stub(ids.html)
    const q = /query="([^"]+)"/.exec(stub)[1]
    expect(q).not.toMatch(/[<>]/)
    expect(read('rustdoc-what-is-rustdoc.html')).toContain(q)
    expect(await ask({ mem_id: ids.html, query: q, format: 'count' })).toMatch(/^\[recall: [1-9]\d* match/)
  })

  test('13. grep-style argument names get a did-you-mean', async () => {
    const a = await ask({ mem_id: ids.log, pattern: 'error', '-C': 2, output_mode: 'count', head_limit: 5 })
    expect(a).toContain("'-C' (did you mean context?)")
    expect(a).toContain("'output_mode' (did you mean format='count' (or leave it out for the matching lines)?)")
    expect(a).toContain("'head_limit' (none here: answers are capped, and their first line says how to read on)")
    expect(await ask({ memId: ids.log, lines: '1-2' })).toContain("'memId' (did you mean mem_id?)")
    expect(await ask({ id: ids.log, lines: '1-2' })).toContain("'id' (did you mean mem_id?)")
  })

  test("13. format 'FULL' is 'full'; one node of many 'follows'", async () => {
    expect(await ask({ mem_id: ids.cldr, format: 'FULL' })).toBe(read('cldr-ja-languages.json'))
    const small = createRecallToolResultTool(ledger, { maxOutputChars: 300 })
    const a = await small.invoke({ mem_id: ids.orders, json_path: '$.*.status', offset: 119 })
    expect(a).toMatch(/node 120 of 120 follows, the last\]/)
  })

  test('13. a long single-match line names the lines= that reads it whole', async () => {
    // A minified bundle's line (typescript.js, 9 MB, is not committed).
    const id = await put(`// header\n${'var a=1;'.repeat(500)}needle();${'var b=2;'.repeat(500)}\n// end\n`)
    const a = await ask({ mem_id: id, pattern: 'needle' })
    expect(a.split('\n')[0]).toBe(`[recall: 1 matching line for pattern 'needle' in ${id}; line 2 is over 1000 chars and shows around its matches: lines='2' reads it from its start]`)
    expect((await ask({ mem_id: id, lines: '2' })).length).toBe(2 + 8009)
  })

  test('19. a value is read by one rule, through the tool and through recall()', async () => {
    const want = '[tool_memory error: offset must be an integer, got "twelve"]'
    expect(await ask({ mem_id: ids.log, offset: 'twelve' })).toBe(want)
    expect(await recall(ledger, ids.log, { offset: 'twelve' })).toBe(want)
    expect(await recall(ledger, ids.log, { ignoreCase: 'maybe', pattern: 'x' })).toBe('[tool_memory error: ignore_case must be true or false, got "maybe"]')
    // "12" is 12 both ways.
    expect(await recall(ledger, ids.log, { offset: '12', maxChars: '5' })).toBe(await ask({ mem_id: ids.log, offset: 12, max_chars: 5 }))
  })
})
