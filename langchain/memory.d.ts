// Public types of the tool-result memory part of `@symfonic/core/langchain`.
// Sizes are Unicode code points, as everywhere in @symfonic/core.

import type { BaseMessage } from '@langchain/core/messages'
import type { DynamicStructuredTool, StructuredToolInterface } from '@langchain/core/tools'
import type { InteropZodObject } from '@langchain/core/utils/types'
import type { AgentMiddleware } from 'langchain'
import type { Ledger, ToolResultLedgerLike } from '../index'

import type { CacheModel, CachePricing, CompactDefaults, CompactOptions, RecallToolResultInput, UsageEstimate, UsageTotals } from '../lib/tool-memory'

// The types the three adapters share: lib/tool-memory.d.ts.
export type { CacheModel, CompactAfter, RecallAnswers, CachePricing, PerToolOptions, CompactOptions, ReportedUsage, UsageEstimate, UsageTotals, ToolMemoryEvent, RecallToolResultInput, CompactDefaults } from '../lib/tool-memory'

/** What a namespace function is given: the run's config or runtime (both carry `configurable`). */
export interface NamespaceSource {
  configurable?: { thread_id?: unknown; [key: string]: unknown }
  context?: unknown
}

/** Picks the ledger namespace of a run; the default is `configurable.thread_id`. */
export type NamespaceFn = (config: NamespaceSource) => string

/** Options of `toolMemoryMiddleware` and `toolMemoryPreModelHook`. Unknown fields are a `TypeError`. */
export interface ToolMemoryOptions extends Omit<CompactOptions, 'namespace' | 'cacheModel'> {
  /** The ledger results are recorded in (checked for `record`, `fetch`, `handle` and `stub`). Default: a new bounded `Ledger()`. */
  ledger?: Ledger
  /**
   * A result larger than `evictChars` is recorded when the tool returns it and the graph state (so
   * every checkpoint) keeps its stub instead of the payload: in `wrapToolCall` for the middleware, in
   * the tools wrapped by `hook.offloadTools(tools)` for the hook. Needs a `ledger` with a store
   * (`new Ledger({ store: 'sqlite:./ledger.db' })`); a `TypeError` otherwise. Default `false`.
   */
  offload?: boolean
  /** Longest recall answer in code points, truncation marker included. Default `MAX_OUTPUT_CHARS` (50,000). */
  recallMaxChars?: number
  /**
   * Ledger namespace: a fixed string or a function of the run config. Default: `configurable.thread_id`;
   * a run without one records into `''`, shared by every such run, and is warned once through `logger`.
   */
  namespace?: string | NamespaceFn
  /**
   * The provider's prompt-cache style. The middleware picks it from the model it wraps
   * (Anthropic / Claude models → `'breakpoint'`, others → `'prefix'`); the hook defaults to `'prefix'`.
   */
  cacheModel?: CacheModel
}

/** Options of `createRecallToolResultTool`. */
export interface RecallToolOptions {
  /** Ledger namespace: a fixed string or a function of the run config. Default: `configurable.thread_id`. */
  namespace?: string | NamespaceFn
  /** Longest answer in code points, truncation marker included (a cut answer names it). Default `MAX_OUTPUT_CHARS` (50,000). */
  maxOutputChars?: number
}

/** The `recall_tool_result` tool. Answers a string and never throws. */
export type RecallToolResultTool = DynamicStructuredTool<
  InteropZodObject,
  RecallToolResultInput,
  RecallToolResultInput,
  string,
  unknown,
  'recall_tool_result'
>

/**
 * The `recall_tool_result` tool bound to `ledger`. It answers through `recall`
 * (structured `[tool_memory …]` / `[recall: …]` messages, never an exception),
 * reads the namespace from `configurable.thread_id` unless told otherwise, and
 * when the ledger misses the id it finds the original among the run state's
 * ToolMessages, records it and answers.
 */
export declare function createRecallToolResultTool(
  ledger: Ledger | ToolResultLedgerLike,
  options?: RecallToolOptions,
): RecallToolResultTool

/**
 * A copy of `messages` in which seen and oversized tool results are ledger stubs
 * (`response_metadata.tool_memory = { memId, compacted: true }`) or one-line notes,
 * as are seen recall answers (`{ memId, compacted: true, note: true }`), and, under `'breakpoint'`, at
 * most two messages carry a `cache_control` mark (their text unchanged). Never
 * mutates its input; idempotent; a pure function of the list and the options.
 */
export declare function compactToolMessages(
  messages: readonly BaseMessage[],
  ledger: Ledger,
  options?: CompactOptions,
): Promise<BaseMessage[]>

/** The `createAgent` middleware returned by `toolMemoryMiddleware`. */
export type ToolMemoryMiddleware = AgentMiddleware<undefined, undefined, unknown, readonly [RecallToolResultTool]>

/**
 * `createAgent` middleware: compacts in `wrapModelCall`, so the model sees stubs and
 * notes while the state keeps the originals, and registers `recall_tool_result`, bound on
 * every call from the first, so that compaction never changes the cached tool block.
 */
export declare function toolMemoryMiddleware(options?: ToolMemoryOptions): ToolMemoryMiddleware
/**
 * `toolMemoryMiddleware` itself is not a middleware: passed without calling it, it is a `TypeError` when
 * the agent is built (reading this property throws), and typed as this message so that
 * TypeScript refuses it there too, quoting it (in a tuple: tsc widens a bare string literal to
 * `string` in its error).
 */
export declare namespace toolMemoryMiddleware {
  const wrapModelCall: readonly ['toolMemoryMiddleware makes a middleware: call it, toolMemoryMiddleware()']
}

/** The state a `toolMemoryPreModelHook` reads. */
export interface ToolMemoryHookState {
  messages: BaseMessage[]
  [key: string]: unknown
}

/**
 * A `createReactAgent` `preModelHook`. Add `hook.tool` to the agent's tools:
 * `createReactAgent({ llm, tools: [...tools, hook.tool], preModelHook: hook })`
 * (when the model is shown a stub while `hook.tool` is in no agent's tools, the
 * hook warns once through `logger`).
 */
export interface ToolMemoryPreModelHook {
  (state: ToolMemoryHookState, config?: NamespaceSource): Promise<{ llmInputMessages: BaseMessage[] }>
  /** The recall tool, bound to the same ledger and namespace. */
  readonly tool: RecallToolResultTool
  /** The ledger the hook records into. */
  readonly ledger: Ledger
  /**
   * Not a middleware: `createAgent({ middleware: [hook] })` throws a `TypeError` when the agent is built
   * (reading this property throws). Typed as this message (in a tuple, which tsc's error quotes) so that
   * TypeScript refuses it there too.
   */
  readonly beforeModel: readonly ['toolMemoryPreModelHook() is a createReactAgent preModelHook; in createAgent use toolMemoryMiddleware()']
  /**
   * With `offload: true`: the same tools, wrapped so that each result over `evictChars` goes to the
   * ledger's store and the state keeps its stub (`tools: [...hook.offloadTools(tools), hook.tool]`).
   */
  offloadTools(tools: readonly StructuredToolInterface[]): DynamicStructuredTool[]
}

/** `createReactAgent` pre-model hook: compacts into `llmInputMessages`, leaving `messages` untouched. */
export declare function toolMemoryPreModelHook(options?: ToolMemoryOptions): ToolMemoryPreModelHook
/**
 * `toolMemoryPreModelHook` itself is not a preModelHook: passed without calling it, it is a `TypeError` when
 * the agent is built (reading this property throws), and typed as this message so that
 * TypeScript refuses it there too, quoting it (in a tuple: tsc widens a bare string literal to
 * `string` in its error).
 */
export declare namespace toolMemoryPreModelHook {
  const wrapModelCall: readonly ['toolMemoryPreModelHook makes a preModelHook: call it, toolMemoryPreModelHook()']
}

/**
 * The prompt-cache style of a chat model (or a model id such as
 * `'anthropic:claude-sonnet-4-5'`): Anthropic / Claude models cache at
 * breakpoints (`'breakpoint'`), others any shared prefix (`'prefix'`). The
 * middleware calls it on the model it wraps; `createReactAgent` users pass
 * `cacheModel: cacheModelFor(llm)` to the hook, which cannot see the model.
 */
export declare function cacheModelFor(model: unknown): CacheModel

/** Options of `usageTotals`: the middleware's options, and the request around the messages. */
export interface UsageTotalsOptions extends Omit<ToolMemoryOptions, 'namespace'> {
  /** The agent's tools, as given to `createAgent` (the recall tool is added, as the middleware binds it). Omit for the hook. */
  tools?: readonly unknown[]
  /** The agent's system prompt. Omit for the hook. */
  systemPrompt?: string
  /** The chat model (or its id), to pick the cache model when `cacheModel` is not set. */
  model?: unknown
  namespace?: string | NamespaceFn
}

/**
 * The totals of a thread from its messages (`state.messages`, as a checkpoint holds them): model
 * calls, compactions, recalls, the estimated input cost with and without compaction, the reported
 * usage, the saving. The same after a restart. Pass the middleware's options and the agent's `tools`
 * and `systemPrompt`; for `toolMemoryPreModelHook`, its options only. `TypeError` on a bad option.
 */
export declare function usageTotals(messages: readonly BaseMessage[], options?: UsageTotalsOptions): UsageTotals

/** The defaults per cache model, chosen by `npm run bench:context`. */
export declare const DEFAULTS: Readonly<Record<CacheModel, CompactDefaults>>

/** The default price multipliers per cache model. */
export declare const PRICING: Readonly<Record<CacheModel, Required<CachePricing>>>
