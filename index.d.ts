// Public types of @symfonic/core. The native class `Ledger` and `memIdFor`
// come from the generated binding (its `///` docs are in binding.d.ts); this
// file adds what the JS entry layers on top. Every size, offset and length is
// counted in Unicode code points (as `Array.from(s).length`), never UTF-16
// units, and no answer ever splits a character or a surrogate pair.

import type {
  Ledger as NativeLedger,
  LedgerOptions,
  RecordInput,
  ToolResultHandle,
  FetchOptions,
  StubOptions,
  EntryOptions,
  ClearOptions,
  LedgerStats,
} from './binding'

export type { LedgerOptions, RecordInput, ToolResultHandle, FetchOptions, StubOptions, EntryOptions, ClearOptions, LedgerStats }
export { Ledger, memIdFor } from './binding'

// What the JS entry adds to the native class.
declare module './binding' {
  interface Ledger {
    /** `close()`, for `await using ledger = await Ledger.open(options)`. */
    [Symbol.asyncDispose](): Promise<void>
  }
  namespace Ledger {
    /**
     * A new ledger, once its store (if any) is open: the SQLite file opened
     * (created if missing, swept), or the Redis server connected and its
     * settings read. Rejects with the open's error (`ERR_SYMFONIC_STORE`, or
     * `ERR_SYMFONIC_STORE_TIMEOUT` past `timeoutMs`). `new Ledger(options)`
     * returns at once and opens in the background instead.
     */
    function open(options?: LedgerOptions | null): Promise<Ledger>
  }
}

/** The cap on what `recall` returns: 50,000 code points, marker included. */
export declare const MAX_OUTPUT_CHARS: 50000

/**
 * Options for `recall`: a fetch plus the output cap. An unknown option name
 * rejects with a `TypeError` naming the closest one; values are read leniently
 * (they may come from a model), so a wrong value is answered, never thrown.
 */
export interface RecallOptions extends FetchOptions {
  /** Longest answer in code points, truncation marker included. Default `MAX_OUTPUT_CHARS`. */
  maxOutputChars?: number
}

/** A ledger written in JS (e.g. a port of a Python one): anything with a `fetch`. */
export interface ToolResultLedgerLike {
  fetch(memId: string, options: FetchOptions): string | Promise<string>
}

/**
 * The model-facing recall contract, for a native `Ledger` or any `ToolResultLedgerLike`.
 * Whatever id and option values it is given, it answers: bad ones come back as
 * structured `[tool_memory error: ...]` / `[recall: ...]` strings the model can act on.
 * It rejects only for a programmer's mistake: options that are not an object, or an
 * unknown option name (`TypeError`, naming the closest valid one).
 */
export declare function recall(
  ledger: NativeLedger | ToolResultLedgerLike,
  memId: unknown,
  options?: RecallOptions | null,
): Promise<string>

export * from './lib/palette'
