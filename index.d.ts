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

/** The cap on what `recall` returns: 50,000 code points, marker included. */
export declare const MAX_OUTPUT_CHARS: 50000

/** Options for `recall`: a fetch plus the output cap. */
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
 * Never throws and never rejects, whatever it is given: bad ids and options come back as
 * structured `[tool_memory error: ...]` / `[recall: ...]` strings the model can act on.
 */
export declare function recall(
  ledger: NativeLedger | ToolResultLedgerLike,
  memId: unknown,
  options?: RecallOptions | Record<string, unknown> | null,
): Promise<string>

export * from './lib/palette'
