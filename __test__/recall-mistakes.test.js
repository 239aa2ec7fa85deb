'use strict'
// The mistake catalogue of issue 32, one case each, sent as a model sends
// them: through the recall_tool_result tool, on the real payloads of
// fixtures/payloads. No answer to a mistake is silent: an empty or echoed
// answer names the mistake, says where matching stopped and what is there,
// or how to send it instead; a correct query that matches nothing still
// answers `[]`.

const fs = require('node:fs')
const path = require('node:path')
const { Ledger, recall } = require('..')
const { createRecallToolResultTool } = require('../langchain')

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'payloads')
const read = (f) => fs.readFileSync(path.join(FIXTURES, f), 'utf8')

const ledger = new Ledger({ maxBytes: 2 ** 30 })
const tool = createRecallToolResultTool(ledger)
const ids = {}
const ask = (args) => tool.invoke(args)

beforeAll(async () => {
  for (const [name, file] of [
    ['orders', 'tau-retail-orders-120.json'],
    ['emoji', 'emojibase-ja-data.json'],
    ['log', 'ci-failure.log'],
    ['cldr', 'cldr-ja-languages.json'],
  ]) {
    ids[name] = (await ledger.record({ toolCallId: `mistake-${name}`, toolName: 'read', content: read(file) })).memId
  }
})

// Every known argument is listed in an answer that names an unknown one.
const KNOWN = 'The arguments are mem_id, json_path, pattern, query, lines, offset, max_chars, ignore_case, context, format'

describe('JSONPath that selects nothing says where matching stopped and what is there', () => {
  test('a misspelled key after a wildcard: the nodes there, their keys, the closest one', async () => {
    const a = await ask({ mem_id: ids.orders, json_path: '$.*.stauts' })
    expect(a).toMatch(/^\[recall: json_path '\$\.\*\.stauts' selects nothing: /)
    expect(a).toContain("'$.*' selects 120 objects, and none has the key 'stauts' (did you mean .status?)")
    expect(a).toContain('their keys: order_id,user_id,address,items,fulfillments,status,payment_history')
  })

  test('a wildcard under a key that is not there: what the object holds', async () => {
    const a = await ask({ mem_id: ids.orders, json_path: '$.items[*].price' })
    expect(a).toMatch(/^\[recall: json_path '\$\.items\[\*\]\.price' selects nothing: '\$' is an object with 120 keys \[#W2611340,#W4817420,/)
    expect(a).toMatch(/: none is 'items'\]$/)
  })

  test('a slice on an object: slices select array elements, and what to write instead', async () => {
    const a = await ask({ mem_id: ids.orders, json_path: '$[0:20]' })
    expect(a).toContain("'$' is an object with 120 keys")
    expect(a).toContain("and [0:20] selects elements of arrays (an object's values are .*, with format='paths' for their keys)")
  })

  test('a filter on a member none of the candidates has: the closest one', async () => {
    const a = await ask({ mem_id: ids.orders, json_path: "$[?@.stauts == 'pending'].order_id" })
    expect(a).toContain("none of the 120 members of '$' has @.stauts (did you mean @.status?)")
  })

  test('a filter comparing numbers with a string: the type mismatch', async () => {
    const a = await ask({ mem_id: ids.emoji, json_path: "$[?@.version > '13'].label" })
    expect(a).toContain("@.version is a number in the 1949 elements of '$' that have it, and the filter compares it with a string ('13')")
  })

  test('a type mismatch counts only the candidates that have the member', async () => {
    const have = JSON.parse(read('emojibase-ja-data.json')).filter((e) => 'emoticon' in e).length
    expect(have).toBeLessThan(1949)
    const a = await ask({ mem_id: ids.emoji, json_path: '$[?@.emoticon == 5].label' })
    expect(a).toMatch(new RegExp(`@\\.emoticon is .* in the ${have} elements of '\\$' that have it, and the filter compares it with a number \\(5\\)`))
  })

  test('a name on a string, an index past the end', async () => {
    const s = await ask({ mem_id: ids.emoji, json_path: '$[*].label.text' })
    expect(s).toContain("'$.*.label' selects 1949 strings, and .text names a member of an object")
    const i = await ask({ mem_id: ids.orders, json_path: '$.*.items[9]' })
    expect(i).toMatch(/'\$\.\*\.items' selects 120 arrays, the longest of length \d, so \[9\] is past their end/)
  })

  test('a descendant name that is nowhere: the closest one', async () => {
    const a = await ask({ mem_id: ids.orders, json_path: '$..tracking_idd' })
    expect(a).toBe("[recall: json_path '$..tracking_idd' selects nothing: no member of '$' or below is named 'tracking_idd' (did you mean ..tracking_id?)]")
  })

  test('a correct query that matches nothing still answers []', async () => {
    expect(await ask({ mem_id: ids.orders, json_path: "$[?@.status == 'lost'].order_id" })).toBe('[]')
    expect(await ask({ mem_id: ids.emoji, json_path: '$[?@.version > 99]' })).toBe('[]')
  })

  test('a singular path that stops says where, and the closest key', async () => {
    const a = await ask({ mem_id: ids.cldr, json_path: '$.main.ja.localDisplayNames' })
    expect(a).toMatch(/^\[recall: json_path '\$\.main\.ja\.localDisplayNames' not found: '\$\.main\.ja' is an object with 2 keys \[identity,localeDisplayNames\] \(did you mean 'localeDisplayNames'\?\)\]$/)
  })
})

describe('arguments under another name, empty or in conflict are named, with the known ones', () => {
  test('jsonpath for json_path', async () => {
    expect(await ask({ mem_id: ids.orders, jsonpath: '$.x' })).toBe(`[recall: unknown argument 'jsonpath' (did you mean json_path?); nothing was read. ${KNOWN}]`)
  })

  test('regex for pattern', async () => {
    expect(await ask({ mem_id: ids.log, regex: 'error' })).toBe(`[recall: unknown argument 'regex' (did you mean pattern?); nothing was read. ${KNOWN}]`)
  })

  test('start_line and end_line for lines: the range they spell', async () => {
    const a = await ask({ mem_id: ids.log, start_line: 120, end_line: '180' })
    expect(a).toBe(`[recall: unknown arguments 'start_line' (did you mean lines?), 'end_line' (did you mean lines?); for lines 120 to 180 pass lines='120-180'; nothing was read. ${KNOWN}]`)
  })

  test("format: 'json' is not a format", async () => {
    const a = await ask({ mem_id: ids.orders, format: 'json' })
    expect(a).toBe(`[recall: format "json" is not a format: 'summary' (the stub), 'full' (the whole result), 'count' (with pattern, query or json_path: how many match), 'paths' (with json_path: where each node is), 'raw' (JSON and lines as written); for part of a JSON result pass json_path, for some lines pattern or lines]`)
  })

  test('an empty pattern is named, not read as no pattern (the stub)', async () => {
    expect(await ask({ mem_id: ids.log, pattern: '' })).toBe('[recall: pattern is empty; pass a regular expression, or leave pattern out]')
    expect(await ask({ mem_id: ids.log, query: '  ' })).toBe('[recall: query is empty; pass the text to find, or leave query out]')
  })

  test('json_path with pattern: the conflict, not a silent precedence', async () => {
    const a = await ask({ mem_id: ids.orders, json_path: '$.*.status', pattern: 'pending' })
    expect(a).toBe('[recall: json_path and pattern cannot be combined: each one picks what the answer is; send one of them (pattern and query take lines to narrow the search)]')
  })

  test('arguments that apply only with another one', async () => {
    expect(await ask({ mem_id: ids.log, format: 'count' })).toBe("[recall: format='count' applies to pattern, query or json_path; nothing was read]")
    expect(await ask({ mem_id: ids.log, context: 3 })).toBe('[recall: context (lines around each match) applies to pattern; nothing was read]')
    expect(await ask({ mem_id: ids.orders, format: 'paths' })).toBe("[recall: format='paths' (where each node is) applies to json_path; nothing was read]")
    // A form asked for under the name of a flag: named, with the format that asks for it.
    expect(await ask({ mem_id: ids.log, pattern: 'x', count_only: true })).toMatch(/^\[recall: unknown argument 'count_only' \(did you mean format='count'\?\); nothing was read/)
    expect(await ask({ mem_id: ids.log, pattern: 'error', context: 3, format: 'count' })).toBe(
      "[recall: context (lines around each match) does not apply to format='count', which answers the count alone; nothing was read]",
    )
    expect(await ask({ mem_id: ids.log, lines: '10-20', offset: 5 })).toBe("[recall: lines and offset both say where to read; send one (lines='120-' or offset=N); nothing was read]")
  })

  test('a context out of range and a pattern holding \\n are named in the answer', async () => {
    expect(await ask({ mem_id: ids.log, pattern: 'error', context: 100 })).toMatch(/^\[recall: \d+ matching lines for pattern 'error' \(context=100 read as 50, the most\) in /)
    expect(await ask({ mem_id: ids.log, pattern: 'error', context: -3 })).toMatch(/^\[recall: \d+ matching lines for pattern 'error' \(context=-3 read as 0, the least\) in /)
    expect(await ask({ mem_id: ids.log, pattern: 'error\\n' })).toBe(
      `[recall: no match for pattern 'error\\n' in ${ids.log}; a pattern matches within one line, so \\n never matches (use $ for a line's end)]`,
    )
  })

  test('defaults a model fills in for the arguments it does not mean ask for nothing', async () => {
    const defaults = { pattern: '', query: '', lines: '', offset: 0, max_chars: 0, ignore_case: false, context: 0, format: 'summary' }
    expect(await ask({ mem_id: ids.orders, ...defaults, json_path: "$['#W2611340'].status" })).toBe('"processed"')
    expect(await ask({ mem_id: ids.log, ...defaults, lines: '1-2' })).toMatch(/^1:.*\n2:/)
    // With nothing else asked, the empty read is the mistake.
    expect(await ask({ mem_id: ids.log, ...defaults })).toBe('[recall: pattern is empty; pass a regular expression, or leave pattern out]')
  })

  test('recall() answers the same mistakes (its option names are the programmer\'s)', async () => {
    expect(await recall(ledger, ids.log, { pattern: '' })).toBe('[recall: pattern is empty; pass a regular expression, or leave pattern out]')
    expect(await recall(ledger, ids.log, { jsonPath: '$.a', query: 'x' })).toMatch(/^\[recall: json_path and query cannot be combined/)
    await expect(recall(ledger, ids.log, { regex: 'x' })).rejects.toThrow(TypeError)
  })
})

describe('ranges past the end state the size; malformed ids get the format', () => {
  test('an offset past the end', async () => {
    const size = Array.from(read('tau-retail-orders-120.json')).length
    expect(await ask({ mem_id: ids.orders, offset: 9_999_999 })).toBe(`[recall: offset=9999999 is past the end of ${ids.orders}, which has ${size} chars]`)
  })

  test('lines past the end, and a range that runs past it', async () => {
    expect(await ask({ mem_id: ids.log, lines: '900-950' })).toBe(`[recall: lines '900-950' start past the end of ${ids.log}, which has 217 lines]`)
    const a = await ask({ mem_id: ids.log, lines: '216-300' })
    expect(a.split('\n')[0]).toBe(`[recall: ${ids.log} has 217 lines; lines 216-217 follow]`)
  })

  test('an offset past the last node of a json_path', async () => {
    expect(await ask({ mem_id: ids.emoji, json_path: '$[*].emoji', offset: 5000 })).toBe("[recall: json_path '$[*].emoji' selects 1949 nodes; offset=5000 is past the last]")
  })

  test('an id copied as mem=trm_…, or cut short', async () => {
    expect(await ask({ mem_id: `mem=${ids.orders}` })).toBe(
      `[tool_memory not found: mem=${ids.orders} in the default namespace; an id is trm_ and 12 hex digits, as the stub shows it: did you mean ${ids.orders}?]`,
    )
    expect(await ask({ mem_id: ids.orders.slice(0, 10) })).toBe(
      `[tool_memory not found: ${ids.orders.slice(0, 10)} in the default namespace; an id is trm_ and 12 hex digits (e.g. trm_3f2a9c01d4e7), copied whole from the stub]`,
    )
    // A well-formed id that is not there gets no hint.
    expect(await ask({ mem_id: 'trm_0123456789ab' })).toBe('[tool_memory not found: trm_0123456789ab in the default namespace]')
  })
})

describe('an answer over the cap never suggests what does not work', () => {
  test('an object over the cap pages its members (no [0:20] on an object)', async () => {
    const a = await ask({ mem_id: ids.orders, json_path: '$' })
    const head = a.split('\n')[0]
    expect(head).toMatch(/^\[recall: json_path '\$' is an object of 120 members, too long for one answer; members 1-\d+ of 120 follow; for the rest pass offset=\d+ with the same json_path\]$/)
    expect(a).not.toContain('[0:20]')
  })
})
