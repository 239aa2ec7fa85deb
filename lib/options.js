'use strict'
// The one validation helper of the package. Programmer mistakes (a
// misspelled option, a wrong type, a ledger missing a method) are a
// TypeError that names the public function the user called and, for an
// unknown option, suggests the closest valid one. Anything a model or a tool
// can send is never validated here: it gets a structured answer instead.

/** A short description of a value for error messages. */
function describe(v) {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'an array'
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + '...' : v)}`
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return `${typeof v} ${String(v)}`
  if (isThenable(v)) return 'a Promise'
  if (v instanceof Map) return 'a Map'
  if (v instanceof Set) return 'a Set'
  return typeof v
}

const isThenable = (v) => v !== null && (typeof v === 'object' || typeof v === 'function') && typeof v.then === 'function'

/** `fn: what (got …)`. */
function fail(fn, what, v) {
  return new TypeError(`${fn}: ${what} (got ${describe(v)})`)
}

function isPlainObject(v) {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(typeof Buffer !== 'undefined' && Buffer.isBuffer(v))
}

// Edits between two names, a swap of neighbours counting as one ("gaurd" → "guard").
function editDistance(a, b) {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)))
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1)
    }
  }
  return d[a.length][b.length]
}

/** The known key closest to `key` (case-insensitive first), or undefined when none is close. */
function closest(key, known) {
  const lower = key.toLowerCase()
  const same = known.find((k) => k.toLowerCase() === lower)
  if (same !== undefined) return same
  // A truncated or extended name: "inputPrice" for "inputPricePerMTok".
  if (lower.length >= 4) {
    const part = known.find((k) => k.toLowerCase().startsWith(lower) || lower.startsWith(k.toLowerCase()))
    if (part !== undefined) return part
  }
  let best
  let bestD = Infinity
  for (const k of known) {
    const d = editDistance(lower, k.toLowerCase())
    if (d < bestD) {
      bestD = d
      best = k
    }
  }
  return bestD <= Math.max(1, Math.floor(key.length / 3)) ? best : undefined
}

// An option's name without its unit or qualifier ("ttl" for "ttlSeconds",
// "timeout" for "timeoutMs"): a known name that is `key` and one more word.
function qualified(key, known) {
  const lower = key.toLowerCase()
  return known.find((k) => k.length > key.length && k.toLowerCase().startsWith(lower) && /[A-Z_]/.test(k[key.length]))
}

/**
 * Rejects keys of `options` that are not in `known`:
 * `fn: unknown option "roletools"; did you mean "roleTools"?`. `path` prefixes
 * nested options (`perTool.read_file.`).
 */
function checkKeys(fn, options, known, path = '') {
  let keys
  try {
    keys = Object.keys(options)
  } catch (e) {
    throw new TypeError(`${fn}: options could not be read (${e && e.message})`)
  }
  for (const k of keys) {
    if (known.includes(k)) continue
    const near = closest(k, known) ?? qualified(k, known)
    throw new TypeError(`${fn}: unknown option "${path}${k}"${near ? `; did you mean "${path}${near}"?` : ''} (known: ${known.join(', ')})`)
  }
}

/** `options` as an object (undefined / null → {}), its keys checked. */
function optionsObject(fn, options, known, what = 'options') {
  if (options === undefined || options === null) return {}
  if (!isPlainObject(options)) throw fail(fn, `${what} must be an object`, options)
  checkKeys(fn, options, known)
  return options
}

/**
 * Checks that `ledger` has every method the caller will use:
 * `fn: ledger must be a Ledger or an object with record(), fetch() (missing: record)`.
 */
function checkLedger(fn, ledger, methods) {
  // `Ledger.open()` resolves to the ledger: a forgotten await passes its Promise.
  if (isThenable(ledger) && methods.some((m) => typeof ledger[m] !== 'function')) {
    throw new TypeError(`${fn}: ledger is a Promise, not a Ledger (a missing await?): const ledger = await Ledger.open(options)`)
  }
  const ok = ledger !== null && (typeof ledger === 'object' || typeof ledger === 'function')
  const missing = ok ? methods.filter((m) => typeof ledger[m] !== 'function') : methods
  if (missing.length > 0) {
    throw new TypeError(
      `${fn}: ledger must be a Ledger or an object with ${methods.map((m) => `${m}()`).join(', ')} (${ok ? `missing: ${missing.join(', ')}` : `got ${describe(ledger)}`})`,
    )
  }
  return ledger
}

/** A non-negative number (Infinity when allowed), else a TypeError. */
function checkCount(fn, name, v, allowInfinity) {
  if (typeof v !== 'number' || Number.isNaN(v) || v < 0 || (!allowInfinity && !Number.isFinite(v))) {
    throw fail(fn, `${name} must be a non-negative number${allowInfinity ? ' or Infinity' : ''}`, v)
  }
  return v
}

function checkOneOf(fn, name, v, values) {
  if (!values.includes(v)) throw fail(fn, `${name} must be one of ${values.map((x) => `'${x}'`).join(', ')}`, v)
  return v
}

function checkBoolean(fn, name, v) {
  if (typeof v !== 'boolean') throw fail(fn, `${name} must be a boolean`, v)
  return v
}

/** A logger: an object (or function) with warn(message). */
function checkLogger(fn, logger) {
  if (logger === undefined || logger === null) return undefined
  if ((typeof logger !== 'object' && typeof logger !== 'function') || typeof logger.warn !== 'function') {
    throw fail(fn, 'logger must be an object with a warn(message) method', logger)
  }
  return logger
}

// A namespace scopes entries (a thread, a tenant): it crosses as UTF-8,
// where a lone surrogate would become U+FFFD and two namespaces could alias.
const isNamespace = (v) => typeof v === 'string' && v.isWellFormed()
const NAMESPACE_TEXT = 'well-formed text (a string without lone surrogates)'

/**
 * A `namespace` option of the LangChain integration: a namespace, nothing,
 * or (when `resolver`) a function of the run config.
 */
function checkNamespace(fn, v, resolver = true) {
  if (v == null || isNamespace(v) || (resolver && typeof v === 'function')) return v
  throw fail(fn, `namespace must be ${NAMESPACE_TEXT}${resolver ? ' or a function of the run config' : ''}`, v)
}

/** An event callback: a function, or nothing. */
function checkCallback(fn, name, v) {
  if (v === undefined || v === null) return undefined
  if (typeof v !== 'function') throw fail(fn, `${name} must be a function`, v)
  return v
}

module.exports = { isNamespace, NAMESPACE_TEXT, describe, isThenable, fail, isPlainObject, closest, checkKeys, optionsObject, checkLedger, checkCount, checkOneOf, checkBoolean, checkLogger, checkCallback, checkNamespace }
