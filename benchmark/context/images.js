'use strict'
// The conversations with images of `npm run bench:context` (issue 40 item
// 8): a tool answers each step with a short text and an image (a screenshot,
// a scanned page), and the model looks back at old images. Each is replayed
// through a real createAgent under each strategy, and every request priced
// under both cache models with each image at its provider's formula
// (core/image-tokens.js: Anthropic for breakpoint, OpenAI for prefix), as a
// string of that many tokens' characters so that the cache's prefix rules
// apply to it as to text. A look-back is met when the image is in the
// request, or the model recalls it and the next request carries it byte for
// byte. Floor and oracle (oracle.js) are priced from the requests without
// compaction, as for the recorded conversations.
//
// A conversation: { name, title, tool, description, user, steps: [{ text,
// image (base64), mimeType }], lookBack: Map<call, step>, label(step) } where
// label(step) is how the step's text begins (what the model looks for in a
// stub to find the image's id).

const { createAgent, createMiddleware, tool, contextEditingMiddleware } = require('langchain')
const { AIMessage } = require('@langchain/core/messages')
const { BaseChatModel } = require('@langchain/core/language_models/chat_models')
const { z } = require('zod')
const { price, serializeTools, hasCacheMark, CHARS_PER_TOKEN } = require('./pricing.js')
const { floorCost, oracleCost } = require('./oracle.js')
const { imageTokens } = require('../../core/image-tokens.js')
const { toolMemoryMiddleware } = require('../../langchain')
const { describeBlock, memIdFor } = require('../..')

// The base64 of every image block in a message's content, in any provider form.
function imagesOf(content) {
  if (!Array.isArray(content)) return []
  return content.flatMap((b) => {
    if (!b || typeof b !== 'object') return []
    if (typeof b.data === 'string') return [b.data]
    if (b.source && typeof b.source.data === 'string') return [b.source.data]
    const url = typeof b.image_url === 'string' ? b.image_url : b.image_url?.url
    return typeof url === 'string' && url.startsWith('data:') ? [url.slice(url.indexOf(',') + 1)] : []
  })
}

// A message as the pricer reads it: text as is, each image as a string of its tokens' worth of characters.
function serialize(m, provider) {
  const type = m._getType ? m._getType() : m.type
  // As pricing.js: an assistant message's name (createAgent's `model`) reaches no provider's cache.
  const name = type === 'ai' ? null : m.name
  let s = `<${type}${name ? ` name=${name}` : ''}${m.tool_call_id ? ` id=${m.tool_call_id}` : ''}>`
  const c = m.content
  if (typeof c === 'string') s += c
  else if (Array.isArray(c)) {
    for (const b of c) {
      const img = imagesOf([b])[0]
      if (img !== undefined) {
        const f = describeBlock(Buffer.from(img, 'base64'))
        const chars = CHARS_PER_TOKEN * imageTokens(f.width ?? 1, f.height ?? 1, provider)
        s += `<img ${memIdFor('i', img)}>`.padEnd(chars, '.')
      } else s += typeof b === 'string' ? b : b && typeof b.text === 'string' ? b.text : ''
    }
  }
  if (m.tool_calls && m.tool_calls.length) s += JSON.stringify(m.tool_calls.map((x) => ({ id: x.id, name: x.name, args: x.args })))
  return s
}

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

// The model: takes the steps in order, and at each look-back finds the old
// image in its prompt, or its id in the stub that begins with the step's label.
class ScriptedReader extends BaseChatModel {
  constructor(conv, run, llmType) {
    super({})
    this.conv = conv
    this.run = run
    this.llmType = llmType
  }
  _llmType() {
    return this.llmType
  }
  bindTools(tools) {
    const b = new ScriptedReader(this.conv, this.run, this.llmType)
    b.tools = tools
    return b
  }
  async _generate(messages) {
    const { conv, run } = this
    const n = run.requests.length + 1
    run.requests.push({ messages, tools: this.tools ?? [] })
    const all = messages.flatMap((m) => imagesOf(m.content))
    const image = (step) => conv.steps[step - 1].image
    // The look-back the model was waiting on: met if the recalled bytes arrived, identical.
    if (run.pending !== null) {
      run.needs.push(all.includes(image(run.pending)))
      run.pending = null
    }
    const call = (name, args) => new AIMessage({ content: '', tool_calls: [{ id: `call_${n}`, name, args }] })
    const back = conv.lookBack.get(n)
    if (back !== undefined) {
      if (all.includes(image(back))) run.needs.push(true)
      else {
        const text = messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n')
        const stub = new RegExp(`${escape(conv.label(back))}[\\s\\S]*?block 2: image \\w+ \\d+×\\d+, [\\d,]+ bytes\\. To see it again: recall_tool_result\\(mem_id="(trm_[0-9a-f]{12})"\\)`).exec(text)
        if (stub === null) run.needs.push(false)
        else {
          run.pending = back
          return { generations: [{ text: '', message: call('recall_tool_result', { mem_id: stub[1] }) }] }
        }
      }
    }
    run.step++
    const message = run.step <= conv.steps.length ? call(conv.tool, { step: run.step }) : new AIMessage('Done.')
    return { generations: [{ text: '', message }] }
  }
}

// The strategies: ours with its defaults (an image is compacted at the call
// after the one that first read it), and ours keeping the newest image the
// model has read inline one step longer (keepLastN 1: until a newer one has
// been read), with its budget and forced to compact whatever a rewrite
// costs: the measurement behind that default (docs/blocks.md).
const STRATEGIES = {
  none: () => [],
  contextEditing: () => [contextEditingMiddleware()],
  ours: () => [toolMemoryMiddleware()],
  newestKept: () => [toolMemoryMiddleware({ keepLastN: 1 })],
  newestKeptForced: () => [toolMemoryMiddleware({ keepLastN: 1, maxExtraCost: Infinity, horizonCalls: Infinity })],
}

/** Replays `conv` under `strategy` and prices its requests under `cacheModel`. */
async function replayImages(conv, strategy, cacheModel) {
  const run = { requests: [], needs: [], pending: null, step: 0 }
  const provider = cacheModel === 'breakpoint' ? 'anthropic' : 'openai'
  const model = new ScriptedReader(conv, run, provider)
  const answer = tool(async ({ step }) => [{ type: 'text', text: conv.steps[step - 1].text }, { type: 'image', data: conv.steps[step - 1].image, mimeType: conv.steps[step - 1].mimeType }], {
    name: conv.tool,
    description: conv.description,
    schema: z.object({ step: z.number() }),
  })
  const recorder = createMiddleware({ name: 'Recorder', wrapModelCall: (request, handler) => handler(request) })
  const agent = createAgent({ model, tools: [answer], middleware: [...STRATEGIES[strategy](), recorder] })
  await agent.invoke({ messages: [{ role: 'user', content: conv.user }] }, { recursionLimit: 500, configurable: { thread_id: `${conv.name}-${strategy}-${cacheModel}` } })
  const requests = run.requests.map((r) => ({ tools: serializeTools(r.tools), messages: r.messages.map((m) => serialize(m, provider)), marked: r.messages.map(hasCacheMark) }))
  return { calls: run.requests.length, needs: run.needs, requests, priced: price(requests, cacheModel) }
}

/** A conversation's rows: per cache model, each strategy's cost and needs, and the floor and oracle. */
async function imageRows(conv) {
  const rows = []
  for (const cacheModel of ['breakpoint', 'prefix']) {
    const runs = {}
    for (const s of Object.keys(STRATEGIES)) runs[s] = await replayImages(conv, s, cacheModel)
    const none = runs.none.priced
    const x = (r) => r.priced.cost / none.cost
    const oracle = oracleCost(runs.none.requests, cacheModel) / none.cost
    rows.push({
      conv: conv.name,
      steps: conv.steps.length,
      cacheModel,
      none: none.cost,
      ratio: Object.fromEntries(Object.entries(runs).map(([s, r]) => [s, x(r)])),
      floor: floorCost(runs.none.requests, cacheModel) / none.cost,
      oracle,
      share: (1 - x(runs.ours)) / (1 - oracle),
      tokens: runs.ours.priced.tokens / none.tokens,
      calls: runs.ours.calls,
      recalls: runs.ours.calls - runs.none.calls,
      needsMet: Object.fromEntries(Object.entries(runs).map(([s, r]) => [s, r.needs.filter(Boolean).length])),
      needs: conv.lookBack.size,
    })
  }
  return rows
}

function imageTable(rows) {
  const r3 = (x) => x.toFixed(3)
  const met = (r, s) => `${r.needsMet[s]}/${r.needs}`
  const out = [
    '| conversation | steps | cache | none | contextEditing | ours | newest kept inline | newest kept, forced | floor | oracle | ours / oracle saving | input tokens, ours / none | recalls | look-backs met (ours; newest kept; forced) |',
    '| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ]
  for (const r of rows) {
    out.push(`| ${r.conv} | ${r.steps} | ${r.cacheModel} | $${r.none.toFixed(4)} | ${r3(r.ratio.contextEditing)} | ${r3(r.ratio.ours)} | ${r3(r.ratio.newestKept)} | ${r3(r.ratio.newestKeptForced)} | ${r3(r.floor)} | ${r3(r.oracle)} | ${(100 * r.share).toFixed(0)}% | ${r3(r.tokens)} | ${r.recalls} | ${met(r, 'ours')}; ${met(r, 'newestKept')}; ${met(r, 'newestKeptForced')} |`)
  }
  return out.join('\n')
}

module.exports = { imageRows, imageTable, replayImages, imagesOf, STRATEGIES }
