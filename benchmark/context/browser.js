'use strict'
// The browser-agent conversation of `npm run bench:context` (issue 40 item 8):
// 30 steps, each a real screenshot (fixtures/browser, 800×500 PNG) beside
// its page's text, and twice the model looks back at an old screenshot (step
// 3 at call 15, step 8 at call 25). Replayed through a real createAgent under
// each strategy; every request priced under both cache models with each
// image at its provider's formula (core/image-tokens.js: Anthropic for
// breakpoint, OpenAI for prefix), as a string of that many tokens' characters
// so the cache's prefix rules apply to it as to text. A look-back is met when
// the screenshot is in the request, or the model recalls it and the next
// request carries it byte for byte.

const fs = require('node:fs')
const path = require('node:path')
const { createAgent, createMiddleware, tool, contextEditingMiddleware } = require('langchain')
const { AIMessage } = require('@langchain/core/messages')
const { BaseChatModel } = require('@langchain/core/language_models/chat_models')
const { z } = require('zod')
const { price, serializeTools, hasCacheMark, CHARS_PER_TOKEN } = require('./pricing.js')
const { imageTokens } = require('../../core/image-tokens.js')
const { toolMemoryMiddleware } = require('../../langchain')
const { describeBlock, memIdFor } = require('../..')

const DIR = path.join(__dirname, '..', '..', 'fixtures', 'browser')
const PAGES = JSON.parse(fs.readFileSync(path.join(DIR, 'pages.json'), 'utf8'))
const STEPS = PAGES.length
const SHOTS = PAGES.map((p) => fs.readFileSync(path.join(DIR, `step-${String(p.step).padStart(2, '0')}.png`)).toString('base64'))
const LOOK_BACK = new Map([
  [15, 3],
  [25, 8],
])

const browse = tool(
  async ({ step }) => [
    { type: 'text', text: `Step ${step}: ${PAGES[step - 1].title}\n${PAGES[step - 1].url}\n${PAGES[step - 1].text}` },
    { type: 'image', data: SHOTS[step - 1], mimeType: 'image/png' },
  ],
  { name: 'browser_step', description: 'Open the next page of the book; returns its text and a screenshot.', schema: z.object({ step: z.number() }) },
)

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
  let s = `<${type}${m.tool_call_id ? ` id=${m.tool_call_id}` : ''}>`
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

class ScriptedBrowser extends BaseChatModel {
  constructor(run, llmType) {
    super({})
    this.run = run
    this.llmType = llmType
  }
  _llmType() {
    return this.llmType
  }
  bindTools(tools) {
    const b = new ScriptedBrowser(this.run, this.llmType)
    b.tools = tools
    return b
  }
  async _generate(messages) {
    const run = this.run
    const n = run.requests.length + 1
    run.requests.push({ messages, tools: this.tools ?? [] })
    const all = messages.flatMap((m) => imagesOf(m.content))
    // The look-back the model was waiting on: met if the recalled bytes arrived, identical.
    if (run.pending !== null) {
      run.needs.push(all.includes(SHOTS[run.pending - 1]))
      run.pending = null
    }
    const call = (name, args) => new AIMessage({ content: '', tool_calls: [{ id: `call_${n}`, name, args }] })
    const back = LOOK_BACK.get(n)
    if (back !== undefined) {
      if (all.includes(SHOTS[back - 1])) run.needs.push(true)
      else {
        const text = messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n')
        const stub = new RegExp(`Step ${back}: [\\s\\S]*?block 2: image png 800×500, [\\d,]+ bytes\\. To see it again: recall_tool_result\\(mem_id="(trm_[0-9a-f]{12})"\\)`).exec(text)
        if (stub === null) run.needs.push(false)
        else {
          run.pending = back
          return { generations: [{ text: '', message: call('recall_tool_result', { mem_id: stub[1] }) }] }
        }
      }
    }
    run.step++
    const message = run.step <= STEPS ? call('browser_step', { step: run.step }) : new AIMessage('Read the whole book.')
    return { generations: [{ text: '', message }] }
  }
}

const STRATEGIES = {
  none: () => [],
  contextEditing: () => [contextEditingMiddleware()],
  ours: () => [toolMemoryMiddleware()],
}

async function replayBrowser(strategy, cacheModel) {
  const run = { requests: [], needs: [], pending: null, step: 0 }
  const model = new ScriptedBrowser(run, cacheModel === 'breakpoint' ? 'anthropic' : 'openai')
  const recorder = createMiddleware({ name: 'Recorder', wrapModelCall: (request, handler) => handler(request) })
  const agent = createAgent({ model, tools: [browse], middleware: [...STRATEGIES[strategy](), recorder] })
  await agent.invoke({ messages: [{ role: 'user', content: 'Read the Rust book page by page.' }] }, { recursionLimit: 500, configurable: { thread_id: `browser-${strategy}-${cacheModel}` } })
  const provider = cacheModel === 'breakpoint' ? 'anthropic' : 'openai'
  const requests = run.requests.map((r) => ({ tools: serializeTools(r.tools), messages: r.messages.map((m) => serialize(m, provider)), marked: r.messages.map(hasCacheMark) }))
  return { calls: run.requests.length, needs: run.needs, priced: price(requests, cacheModel) }
}

/** The browser conversation's rows: each strategy under each cache model. */
async function browserRows() {
  const rows = []
  for (const cacheModel of ['breakpoint', 'prefix']) {
    const none = await replayBrowser('none', cacheModel)
    for (const s of Object.keys(STRATEGIES)) {
      const r = s === 'none' ? none : await replayBrowser(s, cacheModel)
      rows.push({ cacheModel, strategy: s, calls: r.calls, tokens: r.priced.tokens, cost: r.priced.cost, ratio: r.priced.cost / none.priced.cost, needsMet: r.needs.filter(Boolean).length, needs: LOOK_BACK.size })
    }
  }
  return rows
}

function browserTable(rows) {
  const out = ['| cache model | strategy | calls | input tokens | cost (USD) | × none | look-backs met |', '| --- | --- | ---: | ---: | ---: | ---: | ---: |']
  for (const r of rows) out.push(`| ${r.cacheModel} | ${r.strategy} | ${r.calls} | ${Math.round(r.tokens).toLocaleString('en-US')} | ${r.cost.toFixed(4)} | ${r.ratio.toFixed(3)} | ${r.needsMet}/${r.needs} |`)
  return out.join('\n')
}

module.exports = { browserRows, browserTable }

if (require.main === module) {
  browserRows().then((rows) => console.log(browserTable(rows)))
}
