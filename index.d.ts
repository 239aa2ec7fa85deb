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
  BlockFacts,
} from './binding'
import type { BlockForm, BlocksAnswer } from './lib/blocks'

export type { LedgerOptions, RecordInput, ToolResultHandle, FetchOptions, StubOptions, EntryOptions, ClearOptions, LedgerStats, BlockFacts }
export { Ledger, memIdFor, describeBlock } from './binding'
export * from './lib/blocks'

// What the JS entry adds to the native class.
declare module './binding' {
  interface Ledger {
    /** `close()`, for `await using ledger = await Ledger.open(options)`. */
    [Symbol.asyncDispose](): Promise<void>
    /**
     * Records a result made of content blocks (docs/blocks.md): each image or
     * file block as an entry of its own, the text blocks with one placeholder
     * line per other block as the result's entry. Resolves to that entry's
     * handle whose stub lists every block (its facts and the call that shows
     * it again), and `blocks`.
     */
    recordBlocks(input: BlocksInput): Promise<BlocksHandle>
    /** A block recorded by `recordBlocks`, its bytes and facts; null if `memId` is not a block or is gone. */
    fetchBlock(memId: string, options?: EntryOptions | null): Promise<StoredBlock | null>
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

/** The input of `Ledger.recordBlocks`: a `RecordInput` whose content is a list of content blocks. */
export interface BlocksInput extends Omit<RecordInput, 'content'> {
  content: unknown[]
}

/** One image or file block of a recorded result. */
export interface RecordedBlock {
  /** Its place in the content, from 1. */
  index: number
  /** Its own entry: `fetchBlock(memId)` gives it back. */
  memId: string
  type: 'image' | 'file'
  /** The declared MIME type. */
  mimeType: string | null
  url: string | null
  facts: BlockFacts
}

export interface BlocksHandle extends ToolResultHandle {
  blocks: RecordedBlock[]
}

/** A block as `fetchBlock` gives it back. */
export interface StoredBlock {
  memId: string
  type: 'image' | 'file'
  /** The sniffed MIME type, else the declared one. */
  mimeType: string | null
  declaredMimeType: string | null
  /** The bytes, byte for byte; null for a reference or data that is not canonical base64 (kept as text). */
  data: Buffer | null
  /**
   * The data as the block carried it: base64 text (made again from the bytes
   * when first read, the same text), or the text as given when it is not
   * canonical base64; null for a reference.
   */
  base64: string | null
  url: string | null
  fileId: string | null
  filename: string | null
  facts: BlockFacts
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

/** `recall`'s options asking for an image or a document as itself. */
export interface RecallBlocksOptions extends RecallOptions {
  /**
   * A block recorded by `recordBlocks` comes back as itself,
   * `blocksAnswer([block], blocks)`: in this form. Without it, a recall of a
   * block answers text (what the block is, and that its bytes are not text).
   * Other entries answer their text either way.
   */
  blocks: BlockForm
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
  options: RecallBlocksOptions,
): Promise<string | BlocksAnswer>
export declare function recall(
  ledger: NativeLedger | ToolResultLedgerLike,
  memId: unknown,
  options?: RecallOptions | null,
): Promise<string>

export * from './lib/palette'
