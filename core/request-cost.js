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
 */
class PromptCache {
  constructor(cacheModel, pricing = PRICING[cacheModel], measure = (s) => s.length) {
    this.prefix = cacheModel === 'prefix'
    this.pricing = pricing
    this.measure = measure
    this.root = node()
    this.requests = 0
  }

  /** `{ tokens, cachedTokens, cost }`: cost in plain-input-token equivalents (reads and writes at the pricing's rates). */
  price(request) {
    const segs = [request.tools, ...request.messages]
    let chars = 0
    let cached = 0
    let n = this.root
    let matched = this.requests > 0
    for (let d = 0; d < segs.length; d++) {
      const size = this.measure(segs[d])
      const child = matched ? n.next.get(segs[d]) : undefined
      if (child === undefined && matched) {
        matched = false
        // A prefix cache also shares the common head of the first string that differs.
        if (this.prefix) {
          let head = 0
          for (const other of n.next.keys()) head = Math.max(head, commonHead(segs[d], other))
          cached = chars + (head === 0 ? 0 : head === segs[d].length ? size : this.measure(segs[d].slice(0, head)))
        }
      }
      chars += size
      if (!matched) continue
      n = child
      if (this.prefix || d === 0 || child.entry) cached = chars
    }
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
    const marked = request.marked || []
    let n = this.root
    for (let d = 0; d < segs.length; d++) {
      let child = n.next.get(segs[d])
      if (child === undefined) n.next.set(segs[d], (child = node()))
      n = child
      if (d === segs.length - 1 || marked[d - 1]) n.entry = true
    }
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
