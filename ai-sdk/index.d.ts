// Public types of `@symfonic/core/ai-sdk`: tool-result memory for the Vercel AI SDK (ai 6 and 7).
// Sizes are Unicode code points, as everywhere in @symfonic/core.
import type { ModelMessage, Tool } from 'ai'
import type { Ledger } from '../index'
import type { CompactOptions, CacheModel, CachePricing, CompactDefaults, ToolMemoryEvent, UsageTotals } from '../lib/tool-memory'

export type { CacheModel, CompactOptions, ToolMemoryEvent, UsageTotals }

/** The arguments of `recall_tool_result`, as a model sends them (snake_case). */
export interface RecallToolInput {
  mem_id?: unknown
  json_path?: unknown
  pattern?: unknown
  ignore_case?: unknown
  context?: unknown
  lines?: unknown
  query?: unknown
  offset?: unknown
  max_chars?: unknown
  format?: unknown
  [name: string]: unknown
}

/**
 * Options of `toolMemory`: the middleware's, less `offload` (the SDK keeps no state), plus `store`.
 * `onEvent` also gets a `usage` event per model call, from the step's `usage`, when the next step
 * starts (`threadId: null`); the same reports calibrate the estimates per model (docs/usage.md).
 */
export interface AiSdkToolMemoryOptions extends Omit<CompactOptions, 'namespace'> {
  /** The ledger results are recorded in (checked for `record`, `fetch`, `handle` and `stub`). Default: a new bounded `Ledger()`. */
  ledger?: Ledger
  /** A shorthand for `ledger: new Ledger({ store })` (`'sqlite:./ledger.db'`, `'redis://…'`); not with `ledger`. */
  store?: string | string[]
  /**
   * The ledger namespace of this conversation's results. A step and a tool call share no run context in
   * the SDK, so make one `toolMemory()` per conversation to keep conversations apart. Default `''`.
   */
  namespace?: string
  /**
   * The provider's prompt-cache style. Default: per step, from the step's model (`'breakpoint'` for a
   * Claude model, else `'prefix'`).
   */
  cacheModel?: CacheModel
  /** Cap on a recall answer, in code points. Default `MAX_OUTPUT_CHARS` (50,000). */
  recallMaxChars?: number
  /**
   * Your tool set, as you pass it to the SDK: only the size of its definitions is read, so that the
   * budget prices each request as the provider sees it (a prepareStep is not shown them). Without it
   * your tools' definitions count 0, and the budget is a little stricter than the middleware's.
   */
  tools?: Readonly<Record<string, object>>
}

/** What a step gives `prepareStep`: the fields `toolMemory` reads (ai 6 and 7 pass more). */
export interface PrepareStepInput {
  messages: ModelMessage[]
  model?: unknown
  stepNumber?: number
  /** ai 7: the step's instructions, counted in the budget's request size. */
  instructions?: unknown
  /** The steps so far: the last one's `usage` is reported in a `usage` event (docs/usage.md). */
  steps?: ReadonlyArray<{ usage?: unknown; toolCalls?: ReadonlyArray<unknown>; model?: unknown }>
}

/** A prepareStep: ai's `PrepareStepFunction` as `toolMemory` and `composePrepareStep` answer it. */
export type ToolMemoryPrepareStep = (step: PrepareStepInput) => Promise<{ messages?: ModelMessage[] }>

/** What `toolMemory` answers: spread `tools` into yours, pass `prepareStep` (or compose it with yours). */
export interface AiSdkToolMemory {
  tools: { recall_tool_result: Tool<RecallToolInput, string> }
  prepareStep: ToolMemoryPrepareStep
}

/**
 * Tool-result memory for `generateText`, `streamText` and `ToolLoopAgent`: the recall tool, and a
 * `prepareStep` that sends each step's older tool results as stubs (byte-identical at every step)
 * while the SDK keeps the originals in each step's `response.messages`. A mistake in `options` is a
 * `TypeError` naming `toolMemory(options)`; nothing a model sends throws.
 */
export declare function toolMemory(options?: AiSdkToolMemoryOptions): AiSdkToolMemory

/**
 * Several prepareStep functions as one: each runs in order on the step as the earlier ones left it
 * (their `messages` included); their answers are merged, later ones winning. `null`/`undefined` are skipped.
 */
export declare function composePrepareStep<S extends PrepareStepInput>(
  ...prepareSteps: Array<((step: S) => object | undefined | void | PromiseLike<object | undefined | void>) | null | undefined>
): (step: S) => Promise<Record<string, any>>

/** The cache model a model's name or object implies: `'breakpoint'` for Anthropic/Claude, else `'prefix'`. */
export declare function cacheModelFor(model: unknown): CacheModel

/** Compaction defaults per cache model (the same as `@symfonic/core/langchain`'s). */
export declare const DEFAULTS: Readonly<Record<CacheModel, CompactDefaults>>
/** The cache price multipliers per cache model. */
export declare const PRICING: Readonly<Record<CacheModel, Required<CachePricing>>>

/** Options of `usageTotals`: `toolMemory`'s, and the request around the messages. */
export interface AiSdkUsageTotalsOptions extends AiSdkToolMemoryOptions {
  /**
   * The usage each model call reported, in order: each step's `usage` (`result.steps.map((s) => s.usage)`),
   * across the conversation's generations. Omitted: estimates only.
   */
  usage?: readonly unknown[]
  /** The instructions (ai 7) or system prompt (ai 6) the calls were sent with. */
  instructions?: unknown
  /** The model (or its id), to pick the cache model when `cacheModel` is not set. */
  model?: unknown
}

/**
 * The totals of a conversation from its messages (the `ModelMessage[]` you keep) and the steps' usage:
 * model calls, compactions, recalls, the estimated input cost with and without compaction, the reported
 * usage, the saving. A function of its arguments, so the same after a restart. `TypeError` on a bad
 * option, naming `usageTotals(messages, options)`.
 */
export declare function usageTotals(messages: readonly ModelMessage[], options?: AiSdkUsageTotalsOptions): UsageTotals
