// Public types of `@symfonic/core/openai-agents`: tool-result memory for the
// OpenAI Agents SDK for JS (`@openai/agents`). docs/openai-agents.md.

import type { CallModelInputFilter, FunctionTool } from '@openai/agents'
import type { Ledger, LedgerOptions } from '../index'
import type { CacheModel, CompactOptions, UsageTotals } from '../lib/tool-memory'

export type { CacheModel, CompactOptions, ToolMemoryEvent, RecallToolResultInput, UsageTotals } from '../lib/tool-memory'

/**
 * Options of `toolMemory`. Unknown fields are a `TypeError` naming `toolMemory(options)`. `onEvent` also
 * gets a `usage` event per model call (`threadId: null`), from the usage the run records for it, when
 * the agent's next event follows the response; the same reports calibrate the estimates per model and
 * namespace (docs/usage.md).
 */
export interface ToolMemoryOptions<TContext = unknown> extends Omit<CompactOptions, 'namespace' | 'cacheModel'> {
  /** The ledger results are recorded in (checked for `record`, `fetch`, `handle` and `stub`). Default: a new bounded `Ledger()`. */
  ledger?: Ledger
  /** Shorthand for `ledger: new Ledger({ store })` (`'sqlite:./ledger.db'`, `'redis://…'`). Not with `ledger`. */
  store?: LedgerOptions['store']
  /** Longest recall answer in code points, truncation marker included. Default `MAX_OUTPUT_CHARS` (50,000). */
  recallMaxChars?: number
  /**
   * Ledger namespace: a fixed string, or a function of the run's context (the `context` passed to
   * `run`). Default `''`: every run of this `toolMemory` shares one namespace.
   */
  namespace?: string | ((context: TContext | undefined) => string)
  /**
   * The provider's prompt-cache style. Default: from the agent's model (a model name or object naming
   * Anthropic / Claude → `'breakpoint'`, others → `'prefix'`).
   */
  cacheModel?: CacheModel
}

/** What `toolMemory` returns: spread `tools` into the agent's, pass `callModelInputFilter` to `run`. */
export interface ToolMemory {
  /** `[recall_tool_result]`, a function tool made with the SDK's `tool()` (not strict: docs/openai-agents.md says why). */
  readonly tools: [FunctionTool<any, any, string>]
  /**
   * Compacts the model input before every call; asks the SDK for the items themselves
   * (`preserveInputIdentity`), which it never mutates. To compose with your own filter, call this one
   * on your filter's answer (or the other way round) and set `preserveInputIdentity` on yours only if
   * your filter also treats the items as immutable.
   */
  readonly callModelInputFilter: CallModelInputFilter
  /** The ledger the filter records into and the recall tool reads. */
  readonly ledger: Ledger
}

/** Tool-result memory for an Agent: `{ tools: [recall_tool_result], callModelInputFilter, ledger }`. */
export declare function toolMemory<TContext = unknown>(options?: ToolMemoryOptions<TContext>): ToolMemory

/** Options of `usageTotals`: `toolMemory`'s, and the request around the items. */
export interface AgentsUsageTotalsOptions extends ToolMemoryOptions {
  /**
   * The usage the model calls reported: the run's `Usage` (`result.state.usage`; its per-request
   * entries pair with the model responses in order), a list of them (one per run, in order), or the
   * per-request records themselves. Omitted: estimates only.
   */
  usage?: unknown
  /** The agent's tools (`agent.tools`; the recall tool is counted as the filter binds it). */
  tools?: readonly unknown[]
  /** The agent's instructions. */
  instructions?: string
  /** The agent's model (or its name), to pick the cache model when `cacheModel` is not set. */
  model?: unknown
}

/**
 * The totals of a conversation from its items (`result.history`, or a session's items) and the run's
 * usage: model calls, compactions, recalls, the estimated input cost with and without compaction, the
 * reported usage, the saving. A function of its arguments, so the same after a restart. `TypeError` on a
 * bad option, naming `usageTotals(items, options)`.
 */
export declare function usageTotals(items: readonly unknown[], options?: AgentsUsageTotalsOptions): UsageTotals
