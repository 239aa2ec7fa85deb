'use strict'
// `recall`: the model-facing contract over a native Ledger or any ledger-like
// with `fetch`. It never throws whatever a model sends: each value is read
// by lib/recall-args.js (the one reader of model-sent values, for the tool
// too), and every mistake, a missing entry, a closed or failing ledger is a
// structured answer within the cap.

const binding = require('./native.js')
const { fail, isPlainObject, checkKeys, checkLedger, isNamespace } = require('./options.js')
const { argumentMistake, readValues } = require('./recall-args.js')
const { FETCH_KEYS } = require('./ledger.js')
const { blocksAnswer, FORMS } = require('./block-answer.js')

const MAX_OUTPUT_CHARS = binding.MAX_OUTPUT_CHARS
const MEM_ID_ERROR = '[tool_memory error: mem_id must be a non-empty string]'
const RECALL_KEYS = [...FETCH_KEYS, 'maxOutputChars', 'blocks']

/**
 * The answers `recall` gives without asking a native ledger: `notFound`,
 * `closed` (the ledger was closed) or `failed` (it threw), worded once, natively.
 */
function recallAnswer(kind, memId, namespace) {
  return binding.__recallAnswer(kind, String(memId), namespace)
}

// The option names are the programmer's (an unknown one is a TypeError, as in
// `fetch`); the values may come from a model, and are read in recall().
function recallOptions(options) {
  const where = 'recall(ledger, memId, options)'
  if (options === undefined || options === null) options = {}
  if (!isPlainObject(options)) throw fail(where, 'options must be an object', options)
  checkKeys(where, options, RECALL_KEYS)
  // The programmer's choice, not a model's value: a wrong one is a TypeError.
  const blocks = options.blocks ?? undefined
  if (blocks !== undefined && !FORMS.includes(blocks)) throw fail(where, `blocks must be one of ${FORMS.map((f) => `'${f}'`).join(', ')}`, blocks)
  const max = options.maxOutputChars
  const n = typeof max === 'string' && max.trim() !== '' ? Number(max) : max
  return { options, maxOutputChars: typeof n === 'number' && n >= 1 ? Math.floor(n) : MAX_OUTPUT_CHARS }
}

function answerText(out, memId, namespace) {
  if (typeof out === 'string') return out
  if (Buffer.isBuffer(out)) return out.toString('utf8')
  if (out === null || out === undefined) return recallAnswer('notFound', memId, namespace)
  try {
    const s = JSON.stringify(out)
    if (s !== undefined) return s
  } catch {
    // not serialisable: fall back to its string form
  }
  return String(out)
}

async function recallFromJs(ledger, memId, o) {
  // The native ledger answers a keyed read whatever the format (its
  // precedence); a ledger written in JS is asked for full then, the one
  // place this rule lives.
  const keyed = [o.query, o.jsonPath, o.offset, o.maxChars, o.pattern, o.lines].some((v) => v !== undefined)
  // A read with keys answers the payload's parts (full); count, paths and raw shape those parts.
  const format = keyed && (o.format === 'summary' || o.format === 'full') ? 'full' : o.format
  let contiguousFrom
  let out
  try {
    out = await ledger.fetch(memId, {
      format,
      query: o.query,
      offset: o.offset,
      maxChars: o.maxChars,
      jsonPath: o.jsonPath,
      pattern: o.pattern,
      ignoreCase: o.ignoreCase,
      context: o.context,
      lines: o.lines,
      namespace: o.namespace,
    })
    if (o.query === undefined && o.jsonPath === undefined && o.pattern === undefined && o.lines === undefined) {
      contiguousFrom = keyed ? Math.max(0, Math.floor(o.offset || 0)) : format === 'full' ? 0 : undefined
    }
  } catch (e) {
    // A ledger written before keyed slices existed may reject the options
    // object: degrade to a whole-payload fetch, as the Python original did.
    if (!(e instanceof TypeError)) throw e
    out = await ledger.fetch(memId, { format })
    contiguousFrom = format === 'full' ? 0 : undefined
  }
  return { text: answerText(out, memId, o.namespace), contiguousFrom }
}

// Every answer, errors included, fits the cap.
function fit(text, memId, max, contiguousFrom) {
  if (text.length <= max) return text // UTF-16 length bounds code points
  return binding.capRecallOutput(text, memId, max, contiguousFrom)
}

/**
 * The recall contract for a native Ledger or any ledger-like with `fetch`.
 * Rejects only for a programmer's mistake (no ledger, options that are not an
 * object, an unknown option name); whatever values a model sends, it answers,
 * and a ledger that fails or is closed is an answer too.
 */
async function recall(ledger, memId, options) {
  const { options: given, maxOutputChars: cap } = recallOptions(options) // an async function: a TypeError here rejects
  checkLedger('recall(ledger, memId, options)', ledger, ['fetch'])
  const id = typeof memId === 'string' ? memId.trim() : ''
  if (id === '') return fit(MEM_ID_ERROR, '', cap)
  // Values a model sent that cannot be read as asked: named, never ignored.
  const { values, mistake } = readValues(given)
  if (mistake !== undefined) return fit(mistake, id, cap)
  const asked = argumentMistake(values)
  if (asked !== null) return fit(asked, id, cap)
  // An image or a document, asked for as itself: the block, in the form asked
  // (a text read of it says what it is, and where its bytes are).
  if (given.blocks != null && typeof ledger.fetchBlock === 'function' && isNamespace(given.namespace ?? '')) {
    const block = await Promise.resolve()
      .then(() => ledger.fetchBlock(id, given.namespace == null ? undefined : { namespace: given.namespace }))
      .catch(() => null) // a failing ledger is answered by the recall below, in its words
    if (block != null) return blocksAnswer([block], given.blocks)
  }
  const o = { ...values, format: values.format ?? 'summary', namespace: given.namespace ?? undefined, maxOutputChars: cap }
  for (const k of ['query', 'jsonPath', 'pattern', 'lines']) if (o[k] === '') o[k] = undefined
  // A namespace that is not one (lone surrogates would alias another on the way to Rust) holds nothing.
  if (o.namespace !== undefined && !isNamespace(o.namespace)) return fit(recallAnswer('notFound', id, String(o.namespace).toWellFormed()), id, cap)
  try {
    if (ledger instanceof binding.Ledger) {
      // Already cut to the cap, in code points, on the Rust side.
      return await binding.Ledger.prototype.recall.call(ledger, id, o, cap)
    }
    const { text, contiguousFrom } = await recallFromJs(ledger, id, o)
    return fit(text, id, cap, contiguousFrom)
  } catch (e) {
    const closed = e !== null && typeof e === 'object' && e.code === 'ERR_SYMFONIC_CLOSED'
    return fit(recallAnswer(closed ? 'closed' : 'failed', id), id, cap)
  }
}

module.exports = { recall, recallAnswer, MAX_OUTPUT_CHARS }
