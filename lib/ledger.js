'use strict'
// The Ledger as users see it: the native class, with argument checks that
// turn a programmer's mistake into a TypeError saying what was wrong. The
// model-facing `recall` is lib/recall.js.

const binding = require('./native.js')

const { fail, isPlainObject, checkKeys, isNamespace, NAMESPACE_TEXT } = require('./options.js')
const { InFlight, weightOf, resized } = require('./in-flight.js')
const blockRecord = require('./block-record.js')
const crossing = require('./crossing.js')

function requiredString(where, name, v) {
  if (typeof v !== 'string' || v.length === 0) throw fail(where, `${name} must be a non-empty string`, v)
  return v
}

// What each option may be, for every call that takes it: true, or what it
// must be (the TypeError's wording, written here once). The native side
// trusts what passes. Within the types, fetch keeps the reference's rules:
// an unknown format is the summary, a negative offset is 0, a max_chars of
// 0 or less reads to the end.
const OPTION_TYPES = {
  maxBytes: (v) => (typeof v === 'number' && Number.isFinite(v) && v >= 0) || 'a non-negative finite number',
  previewChars: (v) => (Number.isSafeInteger(v) && v >= 0) || 'a non-negative integer',
  // Its shape ('sqlite:<path>', a Redis URL) is checked where it is parsed, natively.
  store: (v) => typeof v === 'string' || (Array.isArray(v) && v.every((u) => typeof u === 'string')) || 'a string or an array of strings',
  ttlSeconds: (v) => (typeof v === 'number' && v > 0) || 'a positive number of seconds or Infinity',
  timeoutMs: (v) => (typeof v === 'number' && v > 0 && v <= 86_400_000) || 'a positive number of milliseconds (at most 86400000, a day)',
  namespace: (v) => isNamespace(v) || NAMESPACE_TEXT,
  format: (v) => typeof v === 'string' || "a string ('summary', 'full', 'count', 'paths' or 'raw')",
  query: (v) => typeof v === 'string' || 'a string',
  jsonPath: (v) => typeof v === 'string' || 'a string',
  pattern: (v) => typeof v === 'string' || 'a string (a regular expression)',
  ignoreCase: (v) => typeof v === 'boolean' || 'a boolean',
  context: (v) => Number.isFinite(v) || 'a finite number',
  lines: (v) => typeof v === 'string' || "a string ('120-180', '120' or '120-')",
  offset: (v) => Number.isFinite(v) || 'a finite number',
  maxChars: (v) => Number.isFinite(v) || 'a finite number',
}

/** `v` if option `name` may be it; undefined (absent) stays undefined. */
function option(where, name, v) {
  if (v === undefined) return undefined
  const ok = OPTION_TYPES[name](v)
  if (ok !== true) throw fail(where, `${name} must be ${ok}`, v)
  return v
}

// The options of `new Ledger` and `Ledger.open`, where null also means absent.
function ledgerOptions(options, where = 'new Ledger(options)') {
  if (options === undefined || options === null) return undefined
  if (!isPlainObject(options)) throw fail(where, 'options must be an object', options)
  const keys = ['maxBytes', 'previewChars', 'store', 'ttlSeconds', 'timeoutMs']
  checkKeys(where, options, keys)
  const out = {}
  for (const k of keys) out[k] = option(where, k, options[k] ?? undefined)
  if (Array.isArray(out.store)) out.store = out.store.slice()
  return out
}

function content(where, v) {
  if (typeof v === 'string' || Buffer.isBuffer(v)) return v
  // Any other byte view is wrapped, not copied.
  if (ArrayBuffer.isView(v)) return Buffer.from(v.buffer, v.byteOffset, v.byteLength)
  throw fail(where, 'content must be a string or a Buffer', v)
}

// Only the first four arguments can reach the summary line (three shown, the
// fourth means "..."), so only those cross the boundary, as JSON-safe values.
// Arguments come from the model: no shape of them (deep nesting, cycles,
// throwing getters, Proxies) may make recording fail.
function summaryArgs(where, args) {
  if (args === undefined || args === null) return undefined
  if (!isPlainObject(args)) throw fail(where, 'toolArgs must be a plain object', args)
  const out = {}
  let keys
  try {
    keys = Object.keys(args)
  } catch {
    return out // a Proxy that refuses to list its keys: no arguments to show
  }
  let n = 0
  for (const k of keys) {
    if (n++ === 4) break
    let v
    try {
      v = args[k]
    } catch {
      v = '[unreadable]'
    }
    out[k] = jsonSafe(v)
  }
  return out
}

// Deeper than this, a value is shown as "[...]": the summary shows 40
// characters of an argument, and the native JSON conversion has a depth limit.
const MAX_ARG_DEPTH = 16

function jsonSafe(v) {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v
  if (typeof v === 'number') return Number.isFinite(v) ? v : String(v)
  if (typeof v === 'object') {
    try {
      const s = JSON.stringify(v)
      if (s !== undefined) return capDepth(JSON.parse(s), 0)
    } catch {
      // cyclic, too deep for the stack, or a throwing toJSON: a plain rendering
    }
  }
  try {
    return String(v)
  } catch {
    return '[unprintable]'
  }
}

function capDepth(v, depth) {
  if (v === null || typeof v !== 'object') return v
  if (depth >= MAX_ARG_DEPTH) return '[...]'
  if (Array.isArray(v)) return v.map((x) => capDepth(x, depth + 1))
  const out = {}
  for (const k of Object.keys(v)) out[k] = capDepth(v[k], depth + 1)
  return out
}

function recordInput(where, input) {
  if (!isPlainObject(input)) throw fail(where, 'input must be an object { toolCallId, toolName, content }', input)
  checkKeys(where, input, RECORD_KEYS)
  return {
    toolCallId: requiredString(where, 'toolCallId', input.toolCallId),
    toolName: requiredString(where, 'toolName', input.toolName),
    toolArgs: summaryArgs(where, input.toolArgs),
    content: content(where, input.content),
    namespace: option(where, 'namespace', input.namespace ?? undefined),
    ttlSeconds: option(where, 'ttlSeconds', input.ttlSeconds ?? undefined),
  }
}

const RECORD_KEYS = ['toolCallId', 'toolName', 'toolArgs', 'content', 'namespace', 'ttlSeconds']
const FETCH_KEYS = ['format', 'query', 'offset', 'maxChars', 'jsonPath', 'pattern', 'ignoreCase', 'context', 'lines', 'namespace']
const STUB_KEYS = ['namespace', 'previewChars']
const ENTRY_KEYS = ['namespace']

function fetchOptions(where, options, keys = FETCH_KEYS) {
  if (options === undefined || options === null) return undefined
  // Every method takes the namespace the same way, in its options object.
  if (typeof options === 'string') {
    const call = where.replace(/\(.*$/, '').replace(/^Ledger\./, '')
    const rest = call === 'clear' ? '' : 'memId, '
    throw fail(where, `the namespace goes in the options object: ${call}(${rest}{ namespace: ${JSON.stringify(options.length > 40 ? options.slice(0, 40) + '...' : options)} })`, options)
  }
  if (!isPlainObject(options)) throw fail(where, 'options must be an object', options)
  checkKeys(where, options, keys)
  // Here null is a value of the wrong type, not an absent option.
  const out = {}
  for (const k of keys) if (options[k] !== undefined) out[k] = option(where, k, options[k])
  return out
}

/**
 * An archive of large tool results; see index.d.ts and the README.
 * Subclasses the native class so `instanceof` and every native method work as is.
 */
// The store each Ledger was opened over (for the middleware's offload mode,
// which refuses a memory-only ledger). Internal: not part of the public API.
const stores = new WeakMap()

/** The store `ledger` was opened over (`'sqlite:…'`, `'redis://…'`, or seed URLs), or null. */
function storeOf(ledger) {
  return (ledger !== null && typeof ledger === 'object' && stores.get(ledger)) || null
}

// The sync twins serve a ledger in memory (no store, or 'sqlite::memory:'):
// on a file or a server they would hold the JS thread while it answers.
function syncAllowed(ledger, where, instead) {
  const store = stores.get(ledger)
  if (store === undefined || store === 'sqlite::memory:') return
  const shown = Array.isArray(store) ? 'a Redis Cluster' : `'${store.startsWith('sqlite:') ? store : store.replace(/\/\/[^@/]*@/, '//***@')}'`
  throw new TypeError(`${where}: this ledger's store (${shown}) is a file or a server, and a sync call would block the JS thread on it; use ${instead}`)
}

// One entry's lookup or removal (`Ledger.<method>(memId, options)`): its
// argument mistakes reject, as its store failures do.
function entryCall(method, memId, options, keys, call) {
  return withStack(
    rejecting(() => {
      const where = `Ledger.${method}(memId, options)`
      requiredString(where, 'memId', memId)
      return call(fetchOptions(where, options, keys))
    }),
  )
}

// A native call's error settles on the event loop, with no JS frame in its
// stack: it gets the frames of the code awaiting it (V8's async stack trace).
async function withStack(promise) {
  try {
    return await promise
  } catch (e) {
    // (Not `instanceof Error`: the addon's errors may come from another realm, as under jest.)
    if (e !== null && typeof e === 'object' && typeof e.stack === 'string' && !/\n\s+at /.test(e.stack)) Error.captureStackTrace(e, withStack)
    throw e
  }
}

// An async method's argument mistakes reject (as its store failures do).
function rejecting(f) {
  try {
    return f()
  } catch (e) {
    return Promise.reject(e)
  }
}

// Each ledger's records in flight (lib/in-flight.js).
const inFlight = new WeakMap()
// `Ledger.open`'s mark on the ledger it makes, so that a TypeError names it.
const OPEN = Symbol('Ledger.open')

class Ledger extends binding.Ledger {
  /**
   * A ledger whose store (if any) is open: resolves once the SQLite file is
   * opened or the Redis server connected and its settings read, rejects with
   * the open's error (`ERR_SYMFONIC_STORE`, `ERR_SYMFONIC_STORE_TIMEOUT`).
   */
  static async open(options) {
    const ledger = new this(options, OPEN)
    try {
      await withStack(ledger.__opened())
    } catch (e) {
      await ledger.close().catch(() => {})
      throw e
    }
    return ledger
  }

  constructor(options, via) {
    const where = via === OPEN ? 'Ledger.open(options)' : 'new Ledger(options)'
    const o = ledgerOptions(options, where)
    try {
      super(o)
    } catch (e) {
      // The store spec's shape is checked where it is parsed, natively.
      throw e && e.code === 'ERR_INVALID_ARG_TYPE' ? new TypeError(`${where}: ${e.message}`) : e
    }
    if (o && o.store) stores.set(this, o.store)
    const maxBytes = o && o.maxBytes !== undefined ? o.maxBytes : binding.DEFAULT_MAX_BYTES
    const boundMs = o && o.store ? (o.timeoutMs ?? binding.DEFAULT_TIMEOUT_MS) : null
    inFlight.set(this, new InFlight(maxBytes, boundMs))
  }

  record(input) {
    let checked
    try {
      checked = recordInput('Ledger.record(input)', input)
    } catch (e) {
      return Promise.reject(e)
    }
    return this.#run(checked, (c, startedAt) => super.record(c, startedAt))
  }

  // A checked record's native call, in its turn among the records in flight.
  #run(checked, native) {
    const c = checked.content
    const len = c.length
    const startedAt = Date.now()
    // A Buffer over the limit, or a namespace too long, never waits its turn: the native call refuses it at once.
    const refused = c.length > binding.MAX_CONTENT_BYTES || tooLong(checked.namespace)
    const start = () => {
      // A Buffer that waited its turn is read now: it must be the one given.
      if (c.length !== len) throw resized(len, c)
      if (refused || !crossing.isLong(c)) return native(checked, startedAt)
      return crossing.gather(c).then((units) => native({ ...checked, content: units }, startedAt))
    }
    return withStack(inFlight.get(this).run(weightOf(c), start, refused))
  }

  recordSync(input) {
    const checked = recordInput('Ledger.recordSync(input)', input)
    syncAllowed(this, 'Ledger.recordSync(input)', 'await ledger.record(input)')
    return super.recordSync(checked)
  }

  fetch(memId, options) {
    const where = 'Ledger.fetch(memId, options)'
    try {
      requiredString(where, 'memId', memId)
      options = fetchOptions(where, options)
    } catch (e) {
      return Promise.reject(e)
    }
    return withStack(super.fetch(memId, options))
  }

  fetchSync(memId, options) {
    const where = 'Ledger.fetchSync(memId, options)'
    requiredString(where, 'memId', memId)
    options = fetchOptions(where, options)
    syncAllowed(this, where, 'await ledger.fetch(memId, options)')
    return super.fetchSync(memId, options)
  }

  handle(memId, options) {
    return entryCall('handle', memId, options, ENTRY_KEYS, (o) => super.handle(memId, o))
  }

  stub(memId, options) {
    if (arguments.length > 2) {
      const why = 'the namespace and the preview length go in one options object: stub(memId, { namespace, previewChars })'
      return Promise.reject(fail('Ledger.stub(memId, options)', why, arguments[2]))
    }
    return entryCall('stub', memId, options, STUB_KEYS, (o) => super.stub(memId, o))
  }

  has(memId, options) {
    return entryCall('has', memId, options, ENTRY_KEYS, (o) => super.has(memId, o))
  }

  delete(memId, options) {
    return entryCall('delete', memId, options, ENTRY_KEYS, (o) => super.delete(memId, o))
  }

  clear(options) {
    return withStack(rejecting(() => super.clear(fetchOptions('Ledger.clear(options)', options, ENTRY_KEYS))))
  }

  // Results made of content blocks (lib/block-record.js).
  recordBlocks(input) {
    // A block's bytes are recorded as bytes, after a head saying what they are.
    const recordBytes = (input, head) => this.#run(recordInput('Ledger.recordBlocks(input)', input), (c, at) => super.__recordBlock(c, head, at))
    return rejecting(() => blockRecord.recordBlocks(this, input, recordBytes))
  }

  fetchBlock(memId, options) {
    return entryCall('fetchBlock', memId, options, ENTRY_KEYS, (o) => blockRecord.fetchBlock(this, memId, o))
  }
}

// `await using ledger = await Ledger.open(...)`: closed at the end of the scope.
if (typeof Symbol.asyncDispose === 'symbol') {
  Object.defineProperty(Ledger.prototype, Symbol.asyncDispose, {
    value: function asyncDispose() {
      return this.close()
    },
    writable: true,
    configurable: true,
  })
}

// A namespace of more code points than the native side takes (counted only past the limit in UTF-16 units).
function tooLong(ns) {
  if (ns === undefined || ns.length <= binding.MAX_NAMESPACE_CHARS) return false
  let n = 0
  for (const _ of ns) if (++n > binding.MAX_NAMESPACE_CHARS) return true
  return false
}

function memIdFor(toolCallId, text) {
  requiredString('memIdFor(toolCallId, content)', 'toolCallId', toolCallId)
  return binding.memIdFor(toolCallId, content('memIdFor(toolCallId, content)', text))
}

module.exports = { Ledger, memIdFor, storeOf, FETCH_KEYS }
