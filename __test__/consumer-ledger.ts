// Strict TypeScript consumer of the root API: type-checked in CI (`npm run
// typecheck`) so index.d.ts cannot drift from what the package exports.
import {
  Ledger,
  memIdFor,
  recall,
  MAX_OUTPUT_CHARS,
  type LedgerOptions,
  type RecordInput,
  type ToolResultHandle,
  type FetchOptions,
  type RecallOptions,
  type StubOptions,
  type EntryOptions,
  type ClearOptions,
  type LedgerStats,
  type ToolResultLedgerLike,
  describeBlock,
  readBlocks,
  blocksAnswer,
  type BlocksHandle,
  type RecordedBlock,
  type StoredBlock,
  type BlockFacts,
  type NeutralBlock,
  type BlockForm,
  type BlocksAnswer,
  type RecallBlocksOptions,
} from '@symfonic/core'

async function main(): Promise<void> {
  const options: LedgerOptions = { maxBytes: 64 * 1024 * 1024, previewChars: 200 }
  const ledger = new Ledger(options)
  const input: RecordInput = {
    toolCallId: 'call_1',
    toolName: 'catalog',
    toolArgs: { page: 1 },
    content: Buffer.from('{"rows":[]}'),
    namespace: 'thread-1',
  }
  const handle: ToolResultHandle = await ledger.record(input)
  const again: ToolResultHandle = ledger.recordSync({ toolCallId: 'c', toolName: 't', content: 'text' })
  const id: string = handle.memId
  const size: number = handle.sizeChars
  const schema: string | null = handle.schema
  const preview: string | null = again.preview
  const fetchOptions: FetchOptions = { format: 'full', jsonPath: 'rows', namespace: 'thread-1' }
  const text: string = await ledger.fetch(id, fetchOptions)
  const sync: string = ledger.fetchSync(id, { query: 'rows', offset: 0, maxChars: 10 })
  const maybe: ToolResultHandle | null = await ledger.handle(id, { namespace: 'thread-1' })
  const stubOptions: StubOptions = { namespace: 'thread-1', previewChars: 2000 }
  const stub: string | null = await ledger.stub(id, stubOptions)
  const entry: EntryOptions = { namespace: 'thread-1' }
  const held: boolean = await ledger.has(id, entry)
  const removed: boolean = await ledger.delete(id, entry)
  const clearOne: ClearOptions = { namespace: 'thread-1' }
  const clearedOne: number = await ledger.clear(clearOne)
  const cleared: number = await ledger.clear()
  // The namespace is always an option, never a positional string.
  // @ts-expect-error
  void ledger.handle(id, 'thread-1')
  // @ts-expect-error
  void ledger.stub(id, 'thread-1', stubOptions)
  // @ts-expect-error
  void ledger.clear('thread-1')
  const stats: LedgerStats = ledger.stats()
  const n: number = stats.entries + stats.bytes + stats.hits + stats.misses + stats.evictions
  const storeCounts: number = stats.storeHits + stats.storeMisses + stats.storeErrors
  const stored: LedgerOptions = { store: 'sqlite:./ledger.db', ttlSeconds: 3600, maxBytes: 1024 }
  const shared: LedgerOptions = { store: 'redis://:secret@127.0.0.1:6379/0?prefix=app:', ttlSeconds: 60, timeoutMs: 2000 }
  const cluster: LedgerOptions = { store: ['redis://10.0.0.1:7000', 'redis://10.0.0.2:7001'] }
  const opened: Ledger = await Ledger.open({ store: 'sqlite::memory:' })
  await opened.close()
  {
    await using scoped = await Ledger.open()
    scoped.recordSync({ toolCallId: 'c', toolName: 't', content: 'x' })
  }
  const ttlInput: RecordInput = { toolCallId: 'c', toolName: 't', content: 'x', ttlSeconds: Infinity }
  const computed: string = memIdFor('call_1', 'content')
  const cap: 50000 = MAX_OUTPUT_CHARS
  const recallOptions: RecallOptions = { format: 'summary', maxOutputChars: 1000 }
  const a: string = await recall(ledger, id, recallOptions)
  const jsLedger: ToolResultLedgerLike = { fetch: (memId: string, o: FetchOptions) => `${memId}:${o.format ?? 'summary'}` }
  const b: string = await recall(jsLedger, 42, null)
  const grep: string = await recall(ledger, id, { pattern: 'ERROR|WARN', ignoreCase: true, context: 2, lines: '120-', maxOutputChars: 4000 })
  const read: string = ledger.fetchSync(id, { lines: '120-180' })
  // @ts-expect-error recall's options are exact: a misspelled one is a type error (and a TypeError)
  await recall(ledger, id, { jsonpath: 'rows' })
  // @ts-expect-error ignoreCase is a boolean
  await recall(ledger, id, { pattern: 'x', ignoreCase: 'yes' })
  // @ts-expect-error format is 'summary' | 'full'
  const bad: FetchOptions = { format: 'everything' }
  // @ts-expect-error the test hooks are not part of the typed API
  ledger.__forceMemIdForTest(null)
  // @ts-expect-error the test hooks are not part of the typed API
  ledger.__panicForTest(false)
  const shot: BlocksHandle = await ledger.recordBlocks({ toolCallId: 'c', toolName: 'screenshot', content: [{ type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }] })
  const firstBlock: RecordedBlock | undefined = shot.blocks[0]
  const back: StoredBlock | null = await ledger.fetchBlock(shot.blocks[0]?.memId ?? '')
  const facts: BlockFacts = describeBlock(Buffer.from('GIF89a'), 'image/gif')
  const width: number | undefined = facts.width
  const neutral: NeutralBlock[] | null = readBlocks([{ type: 'input_image', image_url: 'https://example.test/a.png' }])
  const answer = blocksAnswer(back ? [back] : [], 'openai-chat')
  const forms: BlockForm[] = ['standard', 'anthropic', 'openai-responses', 'openai-chat']
  // @ts-expect-error a form is one of the four
  blocksAnswer([], 'gemini')
  // recall() asked for blocks may answer them; without, it answers text.
  const asBlock: string | BlocksAnswer = await recall(ledger, shot.blocks[0]?.memId, { blocks: 'anthropic', namespace: 'ns' })
  const blocksOptions: RecallBlocksOptions = { blocks: 'standard' }
  const either: string | BlocksAnswer = await recall(ledger, id, blocksOptions)
  // @ts-expect-error with blocks asked, the answer may be blocks, not only text
  const notOnlyText: string = await recall(ledger, id, { blocks: 'standard' })
  // @ts-expect-error a form is one of the four
  await recall(ledger, id, { blocks: 'gemini' })
  if (typeof asBlock !== 'string') console.log(asBlock.tool, asBlock.followUp, either, notOnlyText)
  console.log(shot.stub, firstBlock, facts.line, width, neutral, answer.followUp, forms)
  console.log(text, sync, maybe, stub, held, removed, clearedOne, cluster, cleared, n, computed, cap, a, b, grep, read, size, schema, preview, bad, storeCounts, stored, shared, ttlInput)
}

void main()
