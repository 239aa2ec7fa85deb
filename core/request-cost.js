'use strict'
// The price of a request as the provider receives it, under the cache model:
// the ruler of the usage report (docs/usage.md) and of `npm run bench:context`
// (one function for both). Plain data in: a request is its tool definitions
// as one string, then each message as one string (`messageText`), with the
// messages that carry a cache mark. The budget (cost.js) prices what a
// decision would do before the request exists; this prices what was sent.
//
//   breakpoint (Anthropic): a cache entry ends where each earlier request
//     ended, after the tool definitions, and at each message an earlier
//     request marked; the hit is the longest entry that starts this request.
//   prefix (OpenAI): the longest prefix shared with any earlier request,
//     whole messages then the common head of the first that differs, counted
//     in whole 128-token blocks.

const { PRICING } = require('./cache-model.js')

const CHARS_PER_TOKEN = 4
const PREFIX_BLOCK_TOKENS = 128

/** A content value's text: strings and text blocks as they are, any other block as JSON (a cache mark is not content). */
function contentText(content) {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) return content.map((b) => (typeof b === 'string' ? b : b && b.type === 'text' ? b.text : JSON.stringify(b))).join('')
  return content == null ? '' : JSON.stringify(content)
}

/**
 * One message as one string: `<type name=… id=…>`, its content's text, its
 * tool calls as JSON ({ id, name, args }). `type` is the framework's kind
 * ('system', 'human', 'ai', 'tool'); `id` a tool result's call id.
 */
function messageText({ type, name, id, content, calls }) {
  let s = `<${type}${name ? ` name=${name}` : ''}${id ? ` id=${id}` : ''}>` + contentText(content)
  if (calls && calls.length) s += JSON.stringify(calls.map((c) => ({ id: c.id, name: c.name, args: c.args })))
  return s
}

function commonHead(a, b) {
  const n = Math.min(a.length, b.length)
  let i = 0
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++
  return i
}

const node = () => ({ next: new Map(), entry: false })

/**
 * What one conversation's earlier requests left in the provider's cache: a
 * trie of their strings. `price(request)` prices a request against it,
 * `add(request)` remembers one as sent. A request is `{ tools, messages,
 * marked }` (strings; `marked[i]`: message i carries a cache mark).
 * `measure(text)`: its size in characters (the default) or 4 × its tokens.
 * The last path walked is kept: a request that extends the previous one (the
 * same strings) walks only its new messages.
 */
class PromptCache {
  constructor(cacheModel, pricing = PRICING[cacheModel], measure = (s) => s.length) {
    this.prefix = cacheModel === 'prefix'
    this.pricing = pricing
    this.measure = measure
    this.root = node()
    this.requests = 0
    // The last walk: its strings, the trie nodes and cumulative sizes of the first `matched` of them.
    this.path = { segs: [], nodes: [], ends: [], matched: 0 }
  }

  // Walks `segs` down the trie (creating what is missing when `create`); answers how many matched.
  walk(segs, create) {
    const p = this.path
    const n0 = Math.min(p.matched, segs.length)
    let d = 0
    while (d < n0 && p.segs[d] === segs[d]) d++
    const { nodes, ends } = p
    nodes.length = d
    ends.length = d
    let n = d === 0 ? this.root : nodes[d - 1]
    let chars = d === 0 ? 0 : ends[d - 1]
    for (; d < segs.length; d++) {
      let child = n.next.get(segs[d])
      if (child === undefined) {
        if (!create) break
        n.next.set(segs[d], (child = node()))
      }
      chars += this.measure(segs[d])
      nodes.push(child)
      ends.push(chars)
      n = child
    }
    p.segs = segs
    p.matched = d
    return d
  }

  /** `{ tokens, cachedTokens, cost }`: cost in plain-input-token equivalents (reads and writes at the pricing's rates). */
  price(request) {
    const segs = [request.tools, ...request.messages]
    const matched = this.requests > 0 ? this.walk(segs, false) : 0
    const { nodes, ends } = this.path
    const before = matched === 0 ? 0 : ends[matched - 1]
    let cached = 0
    if (this.prefix) {
      cached = before
      // A prefix cache also shares the common head of the first string that differs.
      if (this.requests > 0 && matched < segs.length) {
        let head = 0
        for (const other of (matched === 0 ? this.root : nodes[matched - 1]).next.keys()) head = Math.max(head, commonHead(segs[matched], other))
        if (head > 0) cached += head === segs[matched].length ? this.measure(segs[matched]) : this.measure(segs[matched].slice(0, head))
      }
    } else if (matched > 0) {
      // The deepest entry on the shared path; after the tool definitions there is always one.
      cached = ends[0]
      for (let d = matched - 1; d > 0; d--) {
        if (nodes[d].entry) {
          cached = ends[d]
          break
        }
      }
    }
    let chars = before
    for (let d = matched; d < segs.length; d++) chars += this.measure(segs[d])
    const tokens = chars / CHARS_PER_TOKEN
    let cachedTokens = cached / CHARS_PER_TOKEN
    if (this.prefix) cachedTokens = Math.floor(cachedTokens / PREFIX_BLOCK_TOKENS) * PREFIX_BLOCK_TOKENS
    cachedTokens = Math.min(cachedTokens, tokens)
    const { cacheWrite: w, cacheRead: rd } = this.pricing
    return { tokens, cachedTokens, cost: cachedTokens * rd + (tokens - cachedTokens) * w }
  }

  /** Remembers `request` as sent: its end, and its marked messages, are cache entries from now on. */
  add(request) {
    const segs = [request.tools, ...request.messages]
    this.walk(segs, true)
    const { nodes } = this.path
    nodes[segs.length - 1].entry = true
    const marked = request.marked || []
    for (let i = 0; i < marked.length && i + 1 < segs.length; i++) if (marked[i]) nodes[i + 1].entry = true
    this.requests++
  }
}

/** A conversation's requests priced in order: per call and in total (`hitRatio`: cached tokens over tokens). */
function priceRequests(requests, cacheModel, pricing) {
  const cache = new PromptCache(cacheModel, pricing)
  const calls = []
  for (const r of requests) {
    calls.push(cache.price(r))
    cache.add(r)
  }
  const total = calls.reduce((a, c) => ({ cost: a.cost + c.cost, tokens: a.tokens + c.tokens, cachedTokens: a.cachedTokens + c.cachedTokens }), { cost: 0, tokens: 0, cachedTokens: 0 })
  return { calls, ...total, hitRatio: total.tokens ? total.cachedTokens / total.tokens : 0 }
}

module.exports = { PREFIX_BLOCK_TOKENS, contentText, messageText, PromptCache, priceRequests }
