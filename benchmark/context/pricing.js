'use strict'
// Prices recorded model requests under the two prompt-cache models of issue 4.
//
// A request is priced as the provider would see it: the tool definitions
// first, then the system prompt, then the messages. Each of those is one
// "segment" (a string); two requests share a prefix when their leading
// segments are identical, plus the common head of the first pair that differs.
// Tokens are approximated as characters / 4 (what LangChain's own
// countTokensApproximately does); no tokenizer is involved, so absolute
// numbers are estimates, but every strategy is measured with the same ruler.

const { convertToOpenAITool } = require('@langchain/core/utils/function_calling')

const CHARS_PER_TOKEN = 4
const INPUT_USD_PER_MTOK = 3
const CACHE_MODELS = {
  // Anthropic-style: a cache entry ends where each earlier request ended,
  // after the tool definitions, and at each message an earlier request marked
  // with cache_control; the hit is the longest entry that is a prefix of this
  // request; everything after it is written at 1.25x.
  breakpoint: { write: 1.25, read: 0.1 },
  // OpenAI-style: the longest prefix shared with any earlier request, counted
  // in whole 128-token blocks; the rest is billed at the plain input price.
  prefix: { write: 1, read: 0.1, block: 128 },
}

function textOf(content) {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) {
    return content.map((b) => (typeof b === 'string' ? b : b && b.type === 'text' ? b.text : JSON.stringify(b))).join('')
  }
  return content == null ? '' : JSON.stringify(content)
}

/** Whether a message carries an Anthropic cache_control mark (on any content block). */
function hasCacheMark(m) {
  return Array.isArray(m.content) && m.content.some((b) => b && typeof b === 'object' && b.cache_control != null)
}

/**
 * The provider-visible serialisation of one message (a cache mark is not content).
 * An assistant message's `name` (createAgent names each AIMessage `model`) is left
 * out: Anthropic receives role and content only, OpenAI's Responses API no name;
 * only Chat Completions sends it (benchmark/HISTORY.md, 2026-12-06).
 */
function serializeMessage(m) {
  const type = m._getType ? m._getType() : m.type
  const name = type === 'ai' ? null : m.name
  let s = `<${type}${name ? ` name=${name}` : ''}${m.tool_call_id ? ` id=${m.tool_call_id}` : ''}>` + textOf(m.content)
  if (m.tool_calls && m.tool_calls.length) {
    s += JSON.stringify(m.tool_calls.map((c) => ({ id: c.id, name: c.name, args: c.args })))
  }
  return s
}

function serializeTools(tools) {
  return JSON.stringify(tools.map((t) => (t && t.schema ? convertToOpenAITool(t) : t)))
}

/** Interns segment strings so prefix comparisons are integer comparisons. */
class Interner {
  constructor() {
    this.ids = new Map()
    this.strings = []
  }
  id(s) {
    let i = this.ids.get(s)
    if (i === undefined) {
      i = this.strings.length
      this.ids.set(s, i)
      this.strings.push(s)
    }
    return i
  }
}

function commonPrefixChars(a, b) {
  const n = Math.min(a.length, b.length)
  let i = 0
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++
  return i
}

/**
 * Turns recorded requests ({ tools: string, messages: string[], marked?: boolean[] })
 * into interned segment arrays with their character offsets and marked segments.
 */
function intern(requests) {
  const interner = new Interner()
  const out = requests.map((r) => {
    const segs = [r.tools, ...r.messages].map((s) => interner.id(s))
    const ends = []
    let acc = 0
    for (const id of segs) {
      acc += interner.strings[id].length
      ends.push(acc)
    }
    const marks = (r.marked || []).flatMap((m, i) => (m ? [i + 1] : []))
    return { segs, ends, chars: acc, marks }
  })
  return { interner, reqs: out }
}

function segmentLcp(a, b) {
  const n = Math.min(a.length, b.length)
  let k = 0
  while (k < n && a[k] === b[k]) k++
  return k
}

/**
 * Prices a list of requests under one cache model. Returns per-call rows and
 * totals: cost in USD, input tokens, cached (read) tokens.
 */
function price(requests, cacheModelName) {
  const cm = CACHE_MODELS[cacheModelName]
  const { interner, reqs } = intern(requests)
  const perToken = INPUT_USD_PER_MTOK / 1e6
  const calls = []
  for (let i = 0; i < reqs.length; i++) {
    const r = reqs[i]
    const tokens = r.chars / CHARS_PER_TOKEN
    let cachedChars = 0
    if (cacheModelName === 'breakpoint') {
      for (let j = 0; j < i; j++) {
        const e = reqs[j]
        const k = segmentLcp(e.segs, r.segs)
        // The entry at the end of request j is a hit only if j is a prefix of r.
        if (k === e.segs.length && k <= r.segs.length) cachedChars = Math.max(cachedChars, e.chars)
        // The entries at request j's cache_control marks (segment s ends one).
        for (const s of e.marks) if (k > s) cachedChars = Math.max(cachedChars, e.ends[s])
        // The entry after the tool definitions.
        if (k >= 1) cachedChars = Math.max(cachedChars, r.ends[0])
      }
    } else {
      // Longest shared prefix with any earlier request: whole segments, then
      // the common head of the first differing segment (only the requests
      // sharing the most whole segments can win).
      let bestK = -1
      let cands = []
      for (let j = 0; j < i; j++) {
        const k = segmentLcp(reqs[j].segs, r.segs)
        if (k > bestK) {
          bestK = k
          cands = [j]
        } else if (k === bestK) cands.push(j)
      }
      if (bestK >= 0) {
        const base = bestK === 0 ? 0 : r.ends[bestK - 1]
        let extra = 0
        if (bestK < r.segs.length) {
          const mine = interner.strings[r.segs[bestK]]
          const seen = new Set()
          for (const j of cands) {
            const other = reqs[j].segs[bestK]
            if (other === undefined || seen.has(other)) continue
            seen.add(other)
            extra = Math.max(extra, commonPrefixChars(mine, interner.strings[other]))
          }
        }
        cachedChars = base + extra
      }
    }
    let cachedTokens = cachedChars / CHARS_PER_TOKEN
    if (cm.block) cachedTokens = Math.floor(cachedTokens / cm.block) * cm.block
    cachedTokens = Math.min(cachedTokens, tokens)
    const cost = (cachedTokens * cm.read + (tokens - cachedTokens) * cm.write) * perToken
    calls.push({ tokens, cachedTokens, cost })
  }
  const total = calls.reduce(
    (a, c) => ({ cost: a.cost + c.cost, tokens: a.tokens + c.tokens, cachedTokens: a.cachedTokens + c.cachedTokens }),
    { cost: 0, tokens: 0, cachedTokens: 0 },
  )
  return { calls, ...total, hitRatio: total.tokens ? total.cachedTokens / total.tokens : 0 }
}

module.exports = {
  CHARS_PER_TOKEN,
  INPUT_USD_PER_MTOK,
  CACHE_MODELS,
  textOf,
  serializeMessage,
  serializeTools,
  hasCacheMark,
  price,
}
