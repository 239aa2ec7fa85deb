// Content blocks in one neutral form, free of any framework's types:
// `index.d.ts` re-exports all of this file.

/** A text block. */
export interface TextBlock {
  type: 'text'
  text: string
}

/**
 * An image, or a file or document (a PDF), as given: `data` is base64 text
 * (as the block carried it, even when it is not valid base64), or `url` a
 * reference that is never fetched, or `fileId` a provider's file.
 */
export interface MediaBlock {
  type: 'image' | 'file'
  /** The declared MIME type, as given; never trusted (see `describeBlock`). */
  mimeType: string | null
  data: string | null
  url: string | null
  fileId: string | null
  filename: string | null
}

export type NeutralBlock = TextBlock | MediaBlock

/**
 * A message's content read into neutral blocks: the standard
 * `{ type: 'image' | 'file', data | url, mimeType }` (and `source_type` /
 * `mime_type`), legacy `image_url` (data URLs too), Anthropic `image` /
 * `document` with a `source`, OpenAI `input_image` / `input_file` and Chat
 * Completions `file`. Null for a string, or a list with no image or file
 * block; a block of none of these forms is kept as its JSON text. Never throws.
 */
export declare function readBlocks(content: unknown): NeutralBlock[] | null

/** Where a recalled block goes: see `blocksAnswer`. */
export type BlockForm = 'standard' | 'anthropic' | 'openai-responses' | 'openai-chat'

/** A recalled block as `blocksAnswer` reads it (what `Ledger.fetchBlock` gives). */
export interface RecalledBlock {
  memId: string
  type: 'image' | 'file'
  mimeType: string | null
  data: Uint8Array | null
  base64: string | null
  filename: string | null
  facts: { format?: string; line: string }
}

/**
 * The answer to a recall of `blocks`, byte for byte, in a form the provider
 * accepts: `'standard'` (LangChain standard blocks in the tool result; the
 * default), `'anthropic'`, `'openai-responses'` (`input_*` blocks only), or
 * `'openai-chat'` (a text tool result, the blocks in `followUp`, a user
 * message to put right after the tool results). A block whose bytes are no
 * known format is described, not sent.
 */
export declare function blocksAnswer(blocks: readonly RecalledBlock[], form?: BlockForm): BlocksAnswer

/**
 * A recall's answer of blocks (`blocksAnswer`, `recall(…, { blocks })`): `tool`,
 * the tool result's content; `followUp`, the content of a user message to put
 * right after the tool results (`'openai-chat'` only; else null).
 */
export interface BlocksAnswer {
  tool: string | Array<Record<string, unknown>>
  followUp: Array<Record<string, unknown>> | null
}
