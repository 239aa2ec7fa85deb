'use strict'
// The recall tool's arguments as a model sends them (snake_case), and the
// answer to each mistake in them: an unknown name (with the one it likely
// meant), an empty string, a format that is not one, and arguments that
// cannot go together. Each answer names the mistake and what to send
// instead, so nothing a model asked for is silently ignored.

const { closest } = require('./options.js')

// The arguments, in the order answers list them.
const ARGUMENTS = ['mem_id', 'json_path', 'pattern', 'query', 'lines', 'offset', 'max_chars', 'ignore_case', 'context', 'format']

// The answer's forms `format` names (the first is the default).
const FORMATS = ['summary', 'full', 'count', 'paths', 'raw']

// Names models use for a form of the answer, which `format` names here.
const FORM_ALIASES = {
  count_only: 'count',
  count: 'count',
  paths: 'paths',
  normalized_paths: 'paths',
  with_paths: 'paths',
  raw: 'raw',
  verbatim: 'raw',
}

// Names models use for an argument called otherwise here.
const ALIASES = {
  jsonpath: 'json_path',
  path: 'json_path',
  json_pointer: 'json_path',
  pointer: 'json_path',
  jq: 'json_path',
  selector: 'json_path',
  regex: 'pattern',
  regexp: 'pattern',
  grep: 'pattern',
  search: 'query',
  text: 'query',
  substring: 'query',
  keyword: 'query',
  q: 'query',
  line: 'lines',
  line_range: 'lines',
  start: 'offset',
  skip: 'offset',
  from: 'offset',
  limit: 'max_chars',
  length: 'max_chars',
  max_length: 'max_chars',
  size: 'max_chars',
  case_insensitive: 'ignore_case',
  id: 'mem_id',
  memory_id: 'mem_id',
  // grep's and coding agents' search tools
  '-c': 'context',
  '-a': 'context',
  '-b': 'context',
  '-i': 'ignore_case',
  output_mode: "format='count' (or leave it out for the matching lines)",
}

// Names of other tools' arguments that have no counterpart here, and why.
const NO_COUNTERPART = {
  head_limit: 'answers are capped, and their first line says how to read on',
  '-n': 'matching lines always come numbered',
}

// Line bounds sent as two arguments: `start_line`/`end_line` and the like.
const LINE_BOUNDS = [
  ['start_line', 'end_line'],
  ['line_start', 'line_end'],
  ['from_line', 'to_line'],
  ['first_line', 'last_line'],
]

const snake = (k) => k.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase())

function shownName(k) {
  const s = String(k)
  return s.length > 40 ? s.slice(0, 40) + '...' : s
}

/** The argument `name` most likely meant (`format='count'` for a form), or undefined. */
function meant(name) {
  const raw = String(name).toLowerCase()
  if (ALIASES[raw] !== undefined) return ALIASES[raw]
  const s = snake(name).toLowerCase()
  if (ARGUMENTS.includes(s)) return s
  if (FORM_ALIASES[s] !== undefined) return `format='${FORM_ALIASES[s]}'`
  if (ALIASES[s] !== undefined) return ALIASES[s]
  if (LINE_BOUNDS.some((pair) => pair.includes(s))) return 'lines'
  return closest(s, ARGUMENTS)
}

/**
 * The answer to the argument names of `args` that are not the tool's, or
 * null when every name is known. `start_line`/`end_line` get the `lines`
 * range their values spell.
 */
function unknownArguments(args) {
  const unknown = Object.keys(args).filter((k) => !ARGUMENTS.includes(k))
  if (unknown.length === 0) return null
  const parts = unknown.map((k) => {
    const none = NO_COUNTERPART[snake(k).toLowerCase()]
    if (none !== undefined) return `'${shownName(k)}' (none here: ${none})`
    const m = meant(k)
    return m !== undefined ? `'${shownName(k)}' (did you mean ${m}?)` : `'${shownName(k)}'`
  })
  let range = ''
  for (const [a, b] of LINE_BOUNDS) {
    const [x, y] = [args[a], args[b]].map((v) => (typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v))
    if (Number.isInteger(x) || Number.isInteger(y)) {
      range = `; for lines ${Number.isInteger(x) ? x : 1} to ${Number.isInteger(y) ? y : 'the end'} pass lines='${Number.isInteger(x) ? x : 1}-${Number.isInteger(y) ? y : ''}'`
      break
    }
  }
  const noun = unknown.length === 1 ? 'argument' : 'arguments'
  return `[recall: unknown ${noun} ${parts.join(', ')}${range}; nothing was read. The arguments are ${ARGUMENTS.join(', ')}]`
}

// A value that asks for something: models that fill every argument send
// defaults (`false`, `0`, `''`) for the ones they do not mean, and those ask
// for nothing.
function asks(v) {
  if (v === undefined || v === null || v === false) return false
  if (typeof v === 'string') return v.trim() !== '' && v !== 'false'
  if (typeof v === 'number') return v !== 0 && !Number.isNaN(v)
  return true
}
const blank = (v) => typeof v === 'string' && v.trim() === ''

// What each text argument is, for the answer to an empty one.
const EMPTY = {
  jsonPath: ['json_path', 'a JSONPath such as $.rows[0]'],
  pattern: ['pattern', 'a regular expression'],
  query: ['query', 'the text to find'],
  lines: ['lines', "a range such as '120-180'"],
}

// The reads that pick what an answer is: at most one per call.
const PICKS = [
  ['jsonPath', 'json_path'],
  ['pattern', 'pattern'],
  ['query', 'query'],
]

/**
 * The answer to recall options (camelCase, values as a model sent them)
 * that cannot be read as asked, or null: a text argument left empty when
 * nothing else is asked, a format that is not one, arguments that cannot go
 * together or that apply only with another one. Defaults a model fills in
 * (`false`, `0`, `''` beside another read) ask for nothing and pass. The
 * answer names the arguments as the tool does.
 */
function argumentMistake(o) {
  const json = asks(o.jsonPath)
  const search = asks(o.pattern) || asks(o.query)
  const reads = json || search || asks(o.lines) || asks(o.offset) || asks(o.maxChars) || (o.format !== 'summary' && FORMATS.includes(o.format))
  if (!reads) {
    for (const [k, [name, what]] of Object.entries(EMPTY)) {
      if (blank(o[k])) return `[recall: ${name} is empty; pass ${what}, or leave ${name} out]`
    }
  }
  if (o.format !== undefined && o.format !== null && !FORMATS.includes(o.format)) {
    return `[recall: format ${shownValue(o.format)} is not a format: 'summary' (the stub), 'full' (the whole result), 'count' (with pattern, query or json_path: how many match), 'paths' (with json_path: where each node is), 'raw' (JSON and lines as written); for part of a JSON result pass json_path, for some lines pattern or lines]`
  }
  const picks = PICKS.filter(([k]) => asks(o[k])).map(([, n]) => n)
  if (picks.length > 1) {
    return `[recall: ${picks.join(' and ')} cannot be combined: each one picks what the answer is; send one of them (pattern and query take lines to narrow the search)]`
  }
  const names = []
  const pick = picks[0]
  if (pick !== undefined && typeof o.offset === 'number' && o.offset < 0) {
    names.push(`offset=${o.offset} is negative: with ${pick} it is where an answer said to read on, 0 or more (a negative offset alone reads the last characters)`)
  }
  if (o.format === 'full' && search) names.push(`format='full' (the whole result) does not go with ${pick}, which answers the matching lines; send ${pick} alone, or format='full' alone`)
  if (json && asks(o.lines)) names.push('a JSON node has no lines; send json_path or lines')
  if (asks(o.ignoreCase) && !search) names.push('ignore_case applies to pattern or query')
  if (o.format === 'count' && !search && !json) names.push("format='count' applies to pattern, query or json_path")
  if (asks(o.context) && !asks(o.pattern)) names.push('context (lines around each match) applies to pattern')
  else if (asks(o.context) && o.format === 'count') names.push("context (lines around each match) does not apply to format='count', which answers the count alone")
  if (o.format === 'paths' && !json) names.push("format='paths' (where each node is) applies to json_path")
  if (o.format === 'raw' && !json && !asks(o.lines)) names.push("format='raw' (the text as written) applies to json_path and lines")
  if (asks(o.maxChars) && search) names.push('max_chars (a range length) does not apply to pattern or query, whose answers say how to read on')
  if (asks(o.lines) && !search && !json) {
    if (asks(o.offset)) names.push("lines and offset both say where to read; send one (lines='120-' or offset=N)")
    if (asks(o.maxChars)) names.push("lines reads whole lines; send lines='120-180', or offset with max_chars")
  }
  if (names.length === 0) return null
  return `[recall: ${names.join('; ')}; nothing was read]`
}

// ---- values ------------------------------------------------------------------
// Every value a model sends is read here, by one rule per kind, for the tool
// and for `recall()` alike: numbers may come as strings ("12"), strings as
// numbers, and a value that cannot be read ("twelve") is answered, never dropped.

class ValueMistake extends Error {}

const absent = (v) => v === undefined || v === null

function integer(name, v) {
  if (typeof v === 'number' && Number.isFinite(v)) return Math.trunc(v)
  if (typeof v === 'string' && /^\s*[-+]?\d+(\.\d*)?\s*$/.test(v)) return Math.trunc(Number(v))
  throw new ValueMistake(`${name} must be an integer, got ${shownValue(v)}`)
}

function boolean(name, v) {
  if (v === true || v === 'true' || v === 1) return true
  if (v === false || v === 'false' || v === 0) return false
  throw new ValueMistake(`${name} must be true or false, got ${shownValue(v)}`)
}

function string(name, v) {
  if (typeof v === 'string') return v
  if (typeof v === 'number' || typeof v === 'boolean') return String(v)
  throw new ValueMistake(`${name} must be a string, got ${shownValue(v)}`)
}

// "120-180" as written; 120 reads as "120" and [120, 180] as "120-180".
function lineRange(name, v) {
  if (typeof v === 'string') return v
  if (typeof v === 'number' && Number.isFinite(v)) return String(Math.trunc(v))
  if (Array.isArray(v) && v.length === 2 && v.every((x) => Number.isInteger(x))) return `${v[0]}-${v[1]}`
  throw new ValueMistake(`${name} must be a range such as "120-180", got ${shownValue(v)}`)
}

// A format in any case ('FULL', 'Count') is the format; anything else is kept for its answer.
function format(name, v) {
  const lower = typeof v === 'string' ? v.trim().toLowerCase() : v
  return FORMATS.includes(lower) ? lower : v
}

// Each option (camelCase) with its tool name and how its value is read.
const VALUES = [
  ['format', 'format', format],
  ['query', 'query', string],
  ['offset', 'offset', integer],
  ['maxChars', 'max_chars', integer],
  ['jsonPath', 'json_path', string],
  ['pattern', 'pattern', string],
  ['ignoreCase', 'ignore_case', boolean],
  ['context', 'context', integer],
  ['lines', 'lines', lineRange],
]

/**
 * The recall options' values as a model sent them (camelCase names), read:
 * `{ values }` (absent ones left out), or `{ mistake }`, the answer that
 * names the first value that cannot be read.
 */
function readValues(o) {
  const values = {}
  try {
    for (const [key, name, read] of VALUES) if (!absent(o[key])) values[key] = read(name, o[key])
  } catch (e) {
    if (e instanceof ValueMistake) return { mistake: `[tool_memory error: ${e.message}]` }
    throw e
  }
  return { values }
}

/** A value a model sent, as an answer quotes it: JSON, at most 40 characters. */
function shownValue(v) {
  if (typeof v === 'number') return String(v) // NaN and Infinity, which JSON would print as null
  let s
  try {
    s = JSON.stringify(v)
  } catch {
    s = undefined
  }
  if (typeof s !== 'string') s = String(v)
  return s.length > 40 ? s.slice(0, 40) + '...' : s
}

// The tool's argument names and recall()'s option names of the same values.
const OPTION_OF = Object.fromEntries(VALUES.map(([key, name]) => [name, key]))

module.exports = { ARGUMENTS, FORMATS, OPTION_OF, unknownArguments, argumentMistake, readValues, shownValue }
