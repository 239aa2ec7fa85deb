'use strict'
// Images in a LangChain.js agent loop (issue 40): a browser tool answers each
// step with the page's text and a real screenshot (fixtures/browser); old
// screenshots become one stub line each, and a recall gives the screenshot
// back byte for byte in the form the provider accepts. Real createAgent,
// real ChatAnthropic and ChatOpenAI (Chat Completions and Responses), driven
// through a fake `fetch` that scripts the model's replies from the request it
// receives (no network) and keeps every request.

const fs = require('node:fs')
const path = require('node:path')
const { createAgent, tool } = require('langchain')
const { ChatAnthropic } = require('@langchain/anthropic')
const { ChatOpenAI } = require('@langchain/openai')
const { z } = require('zod')
const { toolMemoryMiddleware } = require('../langchain')

const DIR = path.join(__dirname, '..', 'fixtures', 'browser')
const PAGES = JSON.parse(fs.readFileSync(path.join(DIR, 'pages.json'), 'utf8'))
const STEPS = 8
const shot = (n) => fs.readFileSync(path.join(DIR, `step-${String(n).padStart(2, '0')}.png`))

const browse = tool(
  async ({ step }) => {
    const p = PAGES[step - 1]
    return [
      { type: 'text', text: `Step ${step}: ${p.title}\n${p.url}\n${p.text}` },
      { type: 'image', data: shot(step).toString('base64'), mimeType: 'image/png' },
    ]
  },
  { name: 'browser_step', description: 'Open the next page; returns its text and a screenshot.', schema: z.object({ step: z.number() }) },
)

// The scripted model: steps 1..STEPS, then a recall of step 3's screenshot
// (its id read from the stub in the request), then an answer.
function script(requests, body) {
  requests.push(body)
  const n = requests.length
  if (n <= STEPS) return { tool: 'browser_step', args: { step: n } }
  if (n === STEPS + 1) {
    const m = /block 2: image png 800×500, [\d,]+ bytes\. To see it again: recall_tool_result\(mem_id=\\*"(trm_[0-9a-f]{12})\\*"\)/.exec(JSON.stringify(body).split('Step 3:')[1] ?? '')
    if (m === null) throw new Error('no stub for step 3 in the request')
    return { tool: 'recall_tool_result', args: { mem_id: m[1] } }
  }
  return { text: 'Done.' }
}

function anthropicFetch(requests) {
  return async (_url, init) => {
    const r = script(requests, JSON.parse(init.body))
    const content = r.tool ? [{ type: 'tool_use', id: `toolu_${requests.length}`, name: r.tool, input: r.args }] : [{ type: 'text', text: r.text }]
    return Response.json({ id: `msg_${requests.length}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content, stop_reason: r.tool ? 'tool_use' : 'end_turn', usage: { input_tokens: 1, output_tokens: 1 } })
  }
}

function chatFetch(requests) {
  return async (_url, init) => {
    const r = script(requests, JSON.parse(init.body))
    const message = r.tool ? { role: 'assistant', content: null, tool_calls: [{ id: `call_${requests.length}`, type: 'function', function: { name: r.tool, arguments: JSON.stringify(r.args) } }] } : { role: 'assistant', content: r.text }
    return Response.json({ id: `chatcmpl_${requests.length}`, object: 'chat.completion', created: 1, model: 'gpt-4.1', choices: [{ index: 0, message, finish_reason: r.tool ? 'tool_calls' : 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } })
  }
}

function responsesFetch(requests) {
  return async (_url, init) => {
    const r = script(requests, JSON.parse(init.body))
    const output = r.tool
      ? [{ type: 'function_call', id: `fc_${requests.length}`, call_id: `call_${requests.length}`, name: r.tool, arguments: JSON.stringify(r.args), status: 'completed' }]
      : [{ type: 'message', id: `m_${requests.length}`, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: r.text, annotations: [] }] }]
    return Response.json({ id: `resp_${requests.length}`, object: 'response', created_at: 1, status: 'completed', model: 'gpt-4.1', output, usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 } })
  }
}

async function run(model, middleware) {
  const agent = createAgent({ model, tools: [browse], middleware })
  await agent.invoke({ messages: [{ role: 'user', content: 'Read the book, then look at the step 3 screenshot again.' }] }, { recursionLimit: 100, configurable: { thread_id: `images-${Math.random()}` } })
}

const step3 = shot(3).toString('base64')
const count = (s, sub) => s.split(sub).length - 1

describe.each([
  ['ChatAnthropic', (requests) => new ChatAnthropic({ apiKey: 'test', model: 'claude-sonnet-4-5', clientOptions: { fetch: anthropicFetch(requests) } })],
  ['ChatOpenAI Chat Completions', (requests) => new ChatOpenAI({ apiKey: 'test', model: 'gpt-4.1', configuration: { fetch: chatFetch(requests) } })],
  ['ChatOpenAI Responses', (requests) => new ChatOpenAI({ apiKey: 'test', model: 'gpt-4.1', useResponsesApi: true, configuration: { fetch: responsesFetch(requests) } })],
])('%s', (name, make) => {
  test('old screenshots are stubs; the recalled one comes back byte for byte, as the API takes it', async () => {
    const plain = []
    await run(make(plain), [])
    const ours = []
    await run(make(ours), [toolMemoryMiddleware()])
    expect(ours).toHaveLength(STEPS + 2)
    const sizes = (rs) => rs.reduce((a, r) => a + JSON.stringify(r).length, 0)
    // Without compaction every request carries every screenshot so far.
    expect(count(JSON.stringify(plain[STEPS]), 'iVBORw0KGgo')).toBe(STEPS)
    expect(count(JSON.stringify(ours[STEPS]), 'iVBORw0KGgo')).toBeLessThan(2)
    expect(sizes(ours)).toBeLessThan(0.3 * sizes(plain))
    // The page text beside each screenshot keeps its stub: the model knows what step 3 was.
    expect(JSON.stringify(ours[STEPS])).toMatch(/Step 3: Hello, Cargo! - The Rust Programming Language \[its text: recall_tool_result\(mem_id=\\*"trm_[0-9a-f]{12}\\*"\)\]/)
    // The request after the recall: step 3's screenshot, every byte, where this API takes images.
    const last = ours[STEPS + 1]
    if (name === 'ChatAnthropic') {
      const results = last.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((c) => c.type === 'tool_result')
      const image = results.at(-1).content.find((c) => c.type === 'image')
      expect(image.source).toEqual({ type: 'base64', media_type: 'image/png', data: step3 })
    } else if (name === 'ChatOpenAI Responses') {
      const out = last.input.filter((i) => i.type === 'function_call_output').at(-1)
      expect(out.output.map((p) => p.type)).toEqual(['input_text', 'input_image'])
      expect(out.output[1].image_url).toBe(`data:image/png;base64,${step3}`)
    } else {
      const [toolMsg, user] = last.messages.slice(-2)
      expect(toolMsg.role).toBe('tool')
      expect(typeof toolMsg.content).toBe('string')
      expect(user.role).toBe('user')
      expect(user.content.find((p) => p.type === 'image_url').image_url.url).toBe(`data:image/png;base64,${step3}`)
    }
  }, 60000)
})

// The stub a seen result of blocks is shown by (lib/block-stub.js), through compactToolMessages.
describe('the stub of a result of blocks', () => {
  const { AIMessage, HumanMessage, ToolMessage } = require('@langchain/core/messages')
  const { compactToolMessages } = require('../langchain')
  const { Ledger } = require('..')
  const image = { type: 'image', data: shot(1).toString('base64'), mimeType: 'image/png' }
  const compacted = async (content) => {
    const ledger = new Ledger()
    const messages = [
      new HumanMessage('look'),
      new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'browser_step', args: { step: 1 } }] }),
      new ToolMessage({ content, tool_call_id: 'c1', name: 'browser_step' }),
      new AIMessage({ content: '', tool_calls: [{ id: 'c2', name: 'browser_step', args: { step: 2 } }] }),
      new ToolMessage({ content: 'ok', tool_call_id: 'c2', name: 'browser_step' }),
    ]
    const out = await compactToolMessages(messages, ledger, { cacheModel: 'prefix', keepLastN: 0, horizonCalls: Infinity, maxExtraCost: Infinity })
    return { stub: out[2].content, ledger }
  }
  const BLOCK = /^block 2: image png 800×500, 60,021 bytes\. To see it again: recall_tool_result\(mem_id="trm_[0-9a-f]{12}"\)$/

  test("a page's text: its first line and the call that reads it all, then the block's line", async () => {
    const { stub, ledger } = await compacted([{ type: 'text', text: `Step 1: ${PAGES[0].title}\n${PAGES[0].text}` }, image])
    const lines = stub.split('\n')
    expect(lines).toHaveLength(2)
    const [, id] = /^Step 1: Installation - The Rust Programming Language \[its text: recall_tool_result\(mem_id="(trm_[0-9a-f]{12})"\)\]$/.exec(lines[0])
    expect(lines[1]).toMatch(BLOCK)
    expect(await ledger.fetch(id, { format: 'full', maxChars: 0 })).toMatch(/^Step 1: Installation[\s\S]*\n\[image 2: png 800×500, 60,021 bytes; mem_id=trm_[0-9a-f]{12}\]$/)
  })

  test('a text large beside its stub keeps the full stub; a result that begins with its image has no first line', async () => {
    const large = await compacted([{ type: 'text', text: PAGES.map((p) => p.text).join('\n') }, image])
    expect(large.stub).toMatch(/^\[symfonic\.tool_memory v2\]\n/)
    expect(large.stub.split('\n').at(-1)).toMatch(BLOCK)
    const first = await compacted([image, { type: 'text', text: PAGES[0].text }])
    expect(first.stub).toMatch(/^\[its text: recall_tool_result\(mem_id="trm_[0-9a-f]{12}"\)\]\nblock 1: image png 800×500/)
    // A text all in its first line is shown whole: no call to read it.
    const caption = await compacted([{ type: 'text', text: 'Page 1 of 16: a scanned page' }, image])
    expect(caption.stub).toMatch(/^Page 1 of 16: a scanned page\nblock 2: image png 800×500/)
  })
})
