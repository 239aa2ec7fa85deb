'use strict'
// A recalled block reaches each provider in a form its API accepts, byte for
// byte (docs/recall.md, "Images and documents"): real ChatAnthropic and
// ChatOpenAI (Chat Completions and Responses) driven through a fake `fetch`
// that keeps the request and answers as the API would (no network); each
// request checked against the API's documented shape.

const fs = require('node:fs')
const path = require('node:path')
const { ChatAnthropic } = require('@langchain/anthropic')
const { ChatOpenAI } = require('@langchain/openai')
const { HumanMessage, AIMessage, ToolMessage } = require('@langchain/core/messages')
const { Ledger, blocksAnswer } = require('..')

const DIR = path.join(__dirname, '..', 'fixtures', 'images')
const FILES = ['screenshot-book-1280x800.png', 'exif-rotated-6.jpg', 'animated-idle.gif', 'screenshot-book-640.webp', 'book-ch03-02.pdf']
const bytes = Object.fromEntries(FILES.map((f) => [f, fs.readFileSync(path.join(DIR, f))]))
const MIME = { png: 'image/png', jpg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', pdf: 'application/pdf' }
const mimeOf = (f) => MIME[f.split('.').pop()]

const RESPONSES = {
  anthropic: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'seen' }], stop_reason: 'end_turn', usage: { input_tokens: 1, output_tokens: 1 } },
  responses: { id: 'resp_1', object: 'response', created_at: 1, status: 'completed', model: 'gpt-4.1', output: [{ type: 'message', id: 'm1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'seen', annotations: [] }] }], usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 } },
  chat: { id: 'c1', object: 'chat.completion', created: 1, model: 'gpt-4.1', choices: [{ index: 0, message: { role: 'assistant', content: 'seen' }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } },
}
function fakeFetch(kind, sent) {
  return async (_url, init) => {
    sent.push(JSON.parse(init.body))
    return new Response(JSON.stringify(RESPONSES[kind]), { status: 200, headers: { 'content-type': 'application/json' } })
  }
}

let recalled
beforeAll(async () => {
  const ledger = new Ledger()
  const content = FILES.map((f) => ({ type: f.endsWith('.pdf') ? 'file' : 'image', data: bytes[f].toString('base64'), mimeType: mimeOf(f) }))
  const h = await ledger.recordBlocks({ toolCallId: 'call_shot', toolName: 'browser', content: [{ type: 'text', text: 'Page: The Rust book, step 4' }, ...content] })
  recalled = await Promise.all(h.blocks.map((b) => ledger.fetchBlock(b.memId)))
})

const conversation = (toolContent, followUp) => [
  new HumanMessage('Look at the screenshots again.'),
  new AIMessage({ content: '', tool_calls: [{ id: 'call_recall', name: 'recall_tool_result', args: { mem_id: recalled[0].memId } }] }),
  new ToolMessage({ tool_call_id: 'call_recall', content: toolContent }),
  ...(followUp ? [new HumanMessage({ content: followUp })] : []),
]

// Each data URL or base64 field, decoded, is a fixture's bytes, in order.
function expectBytes(list) {
  expect(list).toHaveLength(FILES.length)
  list.forEach((b64, i) => expect(Buffer.compare(Buffer.from(b64, 'base64'), bytes[FILES[i]])).toBe(0))
}
const fromDataUrl = (u, mime) => {
  expect(u.startsWith(`data:${mime};base64,`)).toBe(true)
  return u.slice(u.indexOf(',') + 1)
}

test('Anthropic: image and document blocks inside tool_result', async () => {
  for (const form of ['standard', 'anthropic']) {
    const sent = []
    const model = new ChatAnthropic({ apiKey: 'test', model: 'claude-sonnet-4-5', clientOptions: { fetch: fakeFetch('anthropic', sent) } })
    const { tool, followUp } = blocksAnswer(recalled, form)
    expect(followUp).toBeNull()
    await model.invoke(conversation(tool, followUp))
    const result = sent[0].messages[2].content[0]
    expect(result.type).toBe('tool_result')
    expect(result.tool_use_id).toBe('call_recall')
    const media = result.content.filter((c) => c.type !== 'text')
    for (const [i, c] of media.entries()) {
      const mime = mimeOf(FILES[i])
      expect(c).toEqual({ type: mime === 'application/pdf' ? 'document' : 'image', source: { type: 'base64', media_type: mime, data: expect.any(String) } })
    }
    expectBytes(media.map((c) => c.source.data))
    expect(result.content.filter((c) => c.type === 'text').map((c) => c.text)[1]).toBe(`[recall: ${recalled[1].memId}, image jpeg 512×600 (EXIF orientation 6: shown 600×512), 61,406 bytes, as recorded]`)
  }
})

test('OpenAI Responses: input_image and input_file in function_call_output', async () => {
  const sent = []
  const model = new ChatOpenAI({ apiKey: 'test', model: 'gpt-4.1', useResponsesApi: true, configuration: { fetch: fakeFetch('responses', sent) } })
  const { tool } = blocksAnswer(recalled, 'openai-responses')
  await model.invoke(conversation(tool))
  const out = sent[0].input.find((i) => i.type === 'function_call_output')
  expect(out.call_id).toBe('call_recall')
  expect(Array.isArray(out.output)).toBe(true) // not JSON-stringified
  for (const part of out.output) expect(['input_text', 'input_image', 'input_file']).toContain(part.type)
  const media = out.output.filter((p) => p.type !== 'input_text')
  expectBytes(media.map((p, i) => fromDataUrl(p.type === 'input_image' ? p.image_url : p.file_data, mimeOf(FILES[i]))))
  expect(media.at(-1)).toMatchObject({ type: 'input_file', filename: `${recalled.at(-1).memId}.pdf` })
})

test('OpenAI Chat Completions: a text tool message, the blocks in a user message right after', async () => {
  const sent = []
  const model = new ChatOpenAI({ apiKey: 'test', model: 'gpt-4.1', configuration: { fetch: fakeFetch('chat', sent) } })
  const { tool, followUp } = blocksAnswer(recalled, 'openai-chat')
  await model.invoke(conversation(tool, followUp))
  const [, assistant, toolMsg, user] = sent[0].messages
  expect(assistant.tool_calls[0].id).toBe('call_recall')
  expect(toolMsg).toMatchObject({ role: 'tool', tool_call_id: 'call_recall' })
  expect(typeof toolMsg.content).toBe('string') // the API takes text only there
  expect(toolMsg.content.split('\n')).toHaveLength(FILES.length + 1)
  expect(toolMsg.content.split('\n').at(-1)).toBe('[the blocks follow in the next user message]')
  expect(user.role).toBe('user')
  for (const part of user.content) expect(['text', 'image_url', 'file']).toContain(part.type)
  const media = user.content.filter((p) => p.type !== 'text')
  expectBytes(media.map((p, i) => fromDataUrl(p.type === 'image_url' ? p.image_url.url : p.file.file_data, mimeOf(FILES[i]))))
})

test('a block whose bytes are no known format is described, never sent', async () => {
  const ledger = new Ledger()
  const h = await ledger.recordBlocks({ toolCallId: 'c', toolName: 't', content: [{ type: 'image', data: Buffer.from('not an image').toString('base64'), mimeType: 'image/png' }, { type: 'image', url: 'https://example.test/x.png' }] })
  const blocks = await Promise.all(h.blocks.map((b) => ledger.fetchBlock(b.memId)))
  for (const form of ['standard', 'anthropic', 'openai-responses']) {
    const { tool } = blocksAnswer(blocks, form)
    expect(tool.map((t) => t.type)).toEqual(form === 'openai-responses' ? ['input_text', 'input_text'] : ['text', 'text'])
  }
  expect(blocksAnswer(blocks, 'openai-chat')).toEqual({ tool: expect.stringContaining('opaque (format not recognised) [declared image/png, bytes disagree]'), followUp: null })
  expect(() => blocksAnswer(blocks, 'gemini')).toThrow(/^blocksAnswer\(blocks, form\): form must be one of/)
})
