'use strict'
// The record cache: per ledger, what compaction has recorded (its memId and
// stubs) and the compacted message it made of each original, so that a pass
// over a history with nothing new never sends a payload across the JS/Rust
// boundary again. Framework-neutral: each adapter's compaction fills it, and
// its recall tool's refill from state records through it.

// The JS-side record cache keeps payload references to compare content without
// crossing into Rust; bound it so finished conversations can be collected.
const CACHE_MAX_ENTRIES = 20000
const CACHE_MAX_CHARS = 32 * 1024 * 1024

const ledgerCaches = new WeakMap()

function cacheFor(ledger) {
  let c = ledgerCaches.get(ledger)
  if (c === undefined) {
    // byCall: `${namespace}\0${tool_call_id}` -> { text, memId, stub, evicted: Map<previewChars, stub> },
    //   oldest dropped first past CACHE_MAX_ENTRIES / CACHE_MAX_CHARS (a miss only costs a re-record).
    // out: original message -> { content, ns, variant, message }: its compacted ToolMessage.
    c = { byCall: new Map(), chars: 0, out: new WeakMap() }
    ledgerCaches.set(ledger, c)
  }
  return c
}

function remember(cache, key, entry) {
  const old = cache.byCall.get(key)
  if (old !== undefined) cache.chars -= old.text.length
  cache.byCall.set(key, entry)
  cache.chars += entry.text.length
  for (const [k, e] of cache.byCall) {
    if (cache.byCall.size <= CACHE_MAX_ENTRIES && cache.chars <= CACHE_MAX_CHARS) break
    if (k === key) continue
    cache.byCall.delete(k)
    cache.chars -= e.text.length
  }
}

// Records one tool result unless this ledger already holds it under the same
// call id and text: `result` is { callId, toolName, text, args } (`args` as
// `callArgs` reads them: they only feed the stub's one-line summary), and
// `blocks`, the original content, for a result made of content blocks
// (recorded by `ledger.recordBlocks`; `text` then stands for its content).
async function recordOnce(ledger, cache, ns, result) {
  const key = ns + '\0' + result.callId
  const hit = cache.byCall.get(key)
  if (hit !== undefined && hit.text === result.text) return hit
  const input = { toolCallId: result.callId, toolName: result.toolName, toolArgs: result.args, content: result.blocks ?? result.text, namespace: ns }
  if (result.blocks !== undefined && typeof ledger.recordBlocks !== 'function') throw new Error('this ledger records no content blocks (no recordBlocks)')
  const handle = await (result.blocks !== undefined ? ledger.recordBlocks(input) : ledger.record(input))
  // toolName, args and the blocks are kept so a refill can record it again (refillFromCache).
  const entry = { text: result.text, memId: handle.memId, stub: handle.stub, evicted: new Map(), blocks: result.blocks !== undefined, content: result.blocks, toolName: result.toolName, args: result.args }
  remember(cache, key, entry)
  return entry
}

async function evictedStub(ledger, entry, ns, previewChars) {
  // The stub of a result of blocks lists its blocks: the ledger's own stub of its text does not.
  if (entry.blocks) return entry.stub
  let stub = entry.evicted.get(previewChars)
  if (stub === undefined) {
    stub = await ledger.stub(entry.memId, { namespace: ns, previewChars })
    if (typeof stub !== 'string') return null
    entry.evicted.set(previewChars, stub)
  }
  return stub
}

// Records again, from this cache, the result `memId` names in namespace `ns`
// (the ledger lost it: eviction, or a store that was emptied), for an adapter
// whose framework keeps no state its recall tool can read. Answers
// 'refilled' or 'absent', as a refill from state does.
async function refillFromCache(ledger, ns, memId) {
  const cache = cacheFor(ledger)
  const prefix = ns + '\0'
  for (const [key, e] of cache.byCall) {
    if (e.memId !== memId || !key.startsWith(prefix)) continue
    cache.byCall.delete(key)
    await recordOnce(ledger, cache, ns, { callId: key.slice(prefix.length), toolName: e.toolName, text: e.text, args: e.args, blocks: e.content })
    return 'refilled'
  }
  return 'absent'
}

module.exports = { cacheFor, recordOnce, evictedStub, refillFromCache }
