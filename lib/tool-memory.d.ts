// The types every tool-memory adapter shares (@symfonic/core/langchain,
// /ai-sdk and /openai-agents): the compaction options, the events, the
// recall tool's arguments. It imports nothing, so that no adapter's types
// pull in another framework's. Sizes are Unicode code points.

/**
 * How the provider caches prompts, which picks the compaction defaults:
 * `'breakpoint'` (Anthropic: a cache entry ends where an earlier request ended)
 * or `'prefix'` (OpenAI-style: any shared prefix, in 128-token blocks).
 */
export type CacheModel = 'breakpoint' | 'prefix'

/**
 * When a tool result becomes eligible for compaction:
 * - `'seen'`: once the model has answered after it (an answer of the model follows it). All results
 *   answering one model call (parallel calls) are fresh together and read in full.
 * - `'turn'`: once a new user message follows it.
 * - `'arrival'`: at once; only `keepLastN` protects fresh results.
 */
export type CompactAfter = 'seen' | 'turn' | 'arrival'

/**
 * How a recall answer the model has read is carried in later calls:
 * `'note'` (a short note naming the `mem_id` and the arguments; a recall repeating
 * earlier arguments is then kept in full, so the model cannot loop), `'keep'` (in full,
 * always) or `'stub'` (recorded in the ledger like any other result).
 */
export type RecallAnswers = 'note' | 'keep' | 'stub'

/**
 * Price multipliers of the provider's prompt cache, relative to the plain input price.
 * The rewrite rule depends only on these ratios. Defaults: breakpoint
 * `{ cacheWrite: 1.25, cacheRead: 0.1 }` (Anthropic), prefix `{ cacheWrite: 1, cacheRead: 0.1 }`.
 */
export interface CachePricing {
  /** Price of a token written to the cache (tokens after the cache hit). */
  cacheWrite?: number
  /** Price of a token read from the cache. */
  cacheRead?: number
}

/** Per-tool overrides of the global thresholds. */
export interface PerToolOptions {
  /**
   * This tool's `sizeChars`: its results larger than this are compacted once seen, smaller ones once
   * older than `windowCalls` (with a one-line note where a stub would not be smaller).
   */
  sizeChars?: number
  /** This tool's results larger than this are stubs from first sight. */
  evictChars?: number
  /** `true`: this tool's results are never compacted (and not counted by `keepLastN`). */
  exempt?: boolean
}

/**
 * What is compacted: every adapter's options extend these. Unset fields come from the defaults of `cacheModel`
 * (the `DEFAULTS` table, chosen by `npm run bench:context`). Unknown fields are a `TypeError`.
 */
export interface CompactOptions {
  /** When a result becomes eligible. Default `'seen'`. */
  compactAfter?: CompactAfter
  /**
   * The N most recent eligible tool results (by position, any tool, any size) stay in full.
   * Exempt tools' results are not counted. Default 0.
   */
  keepLastN?: number
  /**
   * Results larger than this (code points) are compacted once the model has seen them (`compactAfter`);
   * smaller ones once they are older than `windowCalls`. With the default `windowCalls` 0 both happen
   * the call after the model read the result. Default 4000 (breakpoint) / 2000 (prefix).
   */
  sizeChars?: number
  /** Results larger than this are never sent in full, not even fresh. Default 80,000; `Infinity` disables. */
  evictChars?: number
  /** Head preview length of the stubs of results over `evictChars` (the model never saw their body). Default 2000. */
  evictPreviewChars?: number
  /** Per-tool `sizeChars` / `evictChars` / `exempt`, by tool name. */
  perTool?: Readonly<Record<string, PerToolOptions>>
  /** How a recall answer the model has read is carried. Default `'note'`. */
  recallAnswers?: RecallAnswers
  /**
   * Results up to `sizeChars` are compacted once they are older than this many model calls
   * (a result the model read in the last call is 0 calls old). `Infinity`: never. Default 0.
   */
  windowCalls?: number
  /**
   * A result the model's own messages of the last this many calls quote (a distinctive token it uses for
   * the first time and could only have read there) waits, in full, before it is offered. 0: no wait (a
   * quoted result still counts as likelier to be recalled). Default 0 (breakpoint) / 1 (prefix).
   */
  quotedCalls?: number
  /**
   * Later calls over which compacting a result (the rewrite of the cached prefix, and the recalls it is
   * expected to cause) must be repaid; a result that does not pay stays in full. `'auto'`: as many calls
   * as the conversation has made so far, at least 16. `Infinity`: compact whatever is offered, as the
   * budget allows. Default `'auto'`.
   */
  horizonCalls?: number | 'auto'
  /**
   * The budget: a rewrite happens only while the conversation so far (the recall tool's definition and
   * the recall round-trips included) costs at most (1 + maxExtraCost) × what it would cost without
   * compaction (or that plus the recall tool's definition, when more), or when the next call repays it.
   * Priced with `pricing` and the cache model, from the message list alone. `Infinity`: no budget.
   * Default 0.01.
   */
  maxExtraCost?: number
  /** The cache's price multipliers; default per `cacheModel`. */
  pricing?: CachePricing
  /**
   * Under `'breakpoint'`: mark (with Anthropic's `cache_control: { type: 'ephemeral' }` on the last
   * content block) the message ending what the next call will not change, and the one before the first
   * result a later call may still compact: at most two marks per request. Ignored under `'prefix'`. Default `true`.
   */
  cacheMarks?: boolean
  /** The provider's prompt-cache style; picks the defaults above and the pricing. Default `'prefix'`. */
  cacheModel?: CacheModel
  /** Tools whose results are never compacted (and not counted by `keepLastN`). Default `[]`. */
  exemptTools?: readonly string[]
  /** Ledger namespace the results are recorded in. Default `''`. */
  namespace?: string
  /** Receives warnings (a result that could not be recorded, a throwing `onEvent`), each distinct one once. Default: `console`. */
  logger?: { warn(message: string): void }
  /**
   * Receives a small event for each result compacted (once per result), each recall answered, and
   * each model call's usage and cache misses (docs/usage.md). Never throws into the agent.
   */
  onEvent?: (event: ToolMemoryEvent) => void
  /**
   * Counts the tokens of a text, in place of characters / 4 (thresholds, the budget and the usage
   * estimate then read tokens; tool-call arguments stay characters / 4). A `TypeError` when not a
   * function; a count that throws or is not a non-negative number counts characters / 4 for that text.
   */
  countTokens?: (text: string) => number
}

/** A provider's usage record for one model call (LangChain's `usage_metadata`, an AI SDK step's `usage`, an Agents SDK run's usage of the request). */
export interface ReportedUsage {
  /** The whole input, cached parts included. */
  inputTokens: number
  /** Read from the prompt cache; `null` when the provider does not report it. */
  cacheReadTokens: number | null
  /** Written to the prompt cache; `null` when the provider does not report it (OpenAI). */
  cacheWriteTokens: number | null
  outputTokens: number
}

/**
 * One request priced: its input tokens (calibrated), and its cost in plain-input-token
 * equivalents (cache reads and writes at the pricing's rates): multiply by the input price per token.
 */
export interface UsageEstimate {
  inputTokens: number
  cost: number
}

/** What the adapters report through `onEvent` (`'offloaded'`: the LangChain middleware and hook only). */
export type ToolMemoryEvent =
  /**
   * A result is compacted (reported once per result and kind): `'stub'` (the ledger's stub),
   * `'evict'` (over `evictChars`, from first sight) or `'note'` (a one-line note: a result whose
   * stub would not be small beside it, or a recall answer the model has read).
   * `chars` is the original's size, `compactedChars` what the model sees instead (code points).
   */
  | {
      type: 'compacted'
      kind: 'stub' | 'evict' | 'note'
      toolCallId: string
      toolName: string
      memId: string | null
      namespace: string
      chars: number
      compactedChars: number
    }
  /** A result could not be recorded in the ledger; `error` is the reason. */
  | { type: 'recordFailed'; toolCallId: string; toolName: string; namespace: string; chars: number; error: string }
  /** Offload mode put this result in the ledger's store and the stub in the graph state. */
  | { type: 'offloaded'; toolCallId: string; toolName: string; memId: string; namespace: string; chars: number; stubChars: number }
  /** `recall_tool_result` answered: what was asked for, how large the answer is, whether it was refilled from state, and `error`: whether the answer holds nothing of the result (a mistake in the call, an id not found, nothing matched). */
  | {
      type: 'recalled'
      memId: string
      namespace: string
      slice: 'summary' | 'full' | 'json_path' | 'pattern' | 'query' | 'lines' | 'range'
      chars: number
      refilled: boolean
      error: boolean
    }
  /**
   * The ledger's store failed (or timed out) while `recall_tool_result` looked `memId` up.
   * `error` is the store's message (its address, the server's error), which the model's
   * answer leaves out; `code` is the error's (`'ERR_SYMFONIC_STORE'`, `'ERR_SYMFONIC_STORE_TIMEOUT'`).
   */
  | { type: 'storeFailed'; memId: string; namespace: string; error: string; code: string | null }
  /**
   * A model call (`toolMemoryMiddleware`: after it; `toolMemoryPreModelHook`: when the next call
   * starts, once per call): what the provider reported (`null` when it reports
   * nothing), and the request priced with compaction (`ours`) and without (`none`, zero for a call that
   * only recalled), in tokens calibrated by `factor` (learned from the reports): the middleware prices
   * the request as the model received it, with the ruler `npm run bench:context` uses (and keeps it
   * beside the answer as `response_metadata.tool_memory_usage`); the hook and the AI SDK and Agents SDK
   * adapters, as the budget priced it.
   * `call` counts the thread's model calls from 0.
   */
  | {
      type: 'usage'
      threadId: string | null
      namespace: string
      call: number
      model: string | null
      factor: number
      reported: ReportedUsage | null
      estimate: { none: UsageEstimate; ours: UsageEstimate }
    }
  /**
   * The provider read nothing from its prompt cache where the cache model expected about
   * `expectedCacheReadTokens`; `cause` is the likeliest (warned once per cause through `logger`).
   */
  | {
      type: 'cacheMiss'
      threadId: string | null
      namespace: string
      call: number
      cause: 'noCacheMarks' | 'systemPromptChanged' | 'ttlPassed' | 'unknown'
      expectedCacheReadTokens: number
      reported: ReportedUsage
    }

/** The model-facing arguments of `recall_tool_result` (docs/recall.md). */
export interface RecallToolResultInput {
  /** The `trm_…` id from a stub. */
  mem_id: string
  /** The answer's form: `'summary'` (default, the stub), `'full'` (the result), `'count'` (with `pattern` or `query`: the count alone), `'paths'` (with `json_path`: `[path, value]` pairs, RFC 9535 Normalized Paths), `'raw'` (JSON nodes and `lines` as written; default compact JSON, numbered lines). */
  format?: 'summary' | 'full' | 'count' | 'paths' | 'raw'
  /** Path into a JSON payload (`rows.0.price`, `rows[-1]`, `$.rows[*].id`). */
  json_path?: string
  /** A regular expression: the matching lines as `N:line`, like `grep -n`, with their count. */
  pattern?: string
  /** Case-insensitive `pattern` and `query`. */
  ignore_case?: boolean
  /** Lines of context around each `pattern` match (0 to 50). */
  context?: number
  /** A 1-based inclusive line range: `"120-180"`, `"120"`, `"120-"`; with `pattern` or `query`, the lines searched. */
  lines?: string
  /** Substring to find: windows of text around the matches. */
  query?: string
  /** Start of a character range; with `pattern` or `query`, where the search starts; with `json_path`, the nodes to skip. */
  offset?: number
  /** Length of a character range; with `json_path`, a bound on the answer. */
  max_chars?: number
}

/** The compaction options of one cache model, as unset fields resolve. */
export interface CompactDefaults {
  compactAfter: CompactAfter
  keepLastN: number
  sizeChars: number
  evictChars: number
  evictPreviewChars: number
  recallAnswers: RecallAnswers
  windowCalls: number
  quotedCalls: number
  horizonCalls: number | 'auto'
  maxExtraCost: number
}

/** A thread's model calls added up (`usageTotals`). */
export interface UsageTotals {
  modelCalls: number
  /** Tool results compacted (stubs, notes, evictions). */
  compactions: number
  /** `recall_tool_result` calls. */
  recalls: number
  /** Every call priced with compaction and without (the sum of the usage events' estimates). */
  estimate: { none: UsageEstimate; ours: UsageEstimate }
  /** The provider's reports added up; `calls`: the calls that reported. */
  reported: { calls: number; inputTokens: number; cacheReadTokens: number; cacheWriteTokens: number; outputTokens: number }
  /** `none.cost − ours.cost`, and that as a fraction of `none.cost`. */
  saving: { cost: number; ratio: number }
}
