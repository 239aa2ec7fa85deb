'use strict'
// Replays one scripted conversation through a real `createAgent` and records
// every request the model receives (messages and bound tools).
//
// The model is a small scripted BaseChatModel (LangChain's FakeToolCallingModel
// echoes every message into its reply, which would distort sizes). It follows
// the conversation script, but decides *how* to meet each need from what is
// actually in its prompt, the way a real model would:
//   - the result's body is in the prompt            -> met, free;
//   - an earlier recall answer for this need is     -> met, free;
//     in the prompt, or the model already read this
//     exact detail before (its own reply carries it)
//   - a stub with a mem id, and recall_tool_result  -> one recall round-trip
//     is among the bound tools                          (an extra model call
//                                                       carrying the answer);
//   - anything else (a "[cleared]" placeholder, a   -> unrecoverable.
//     missing message, no recall tool)
// Several needs of one step are recalled in one round-trip (parallel calls).

const { createAgent } = require('langchain')
const { BaseChatModel } = require('@langchain/core/language_models/chat_models')
const { AIMessage, HumanMessage } = require('@langchain/core/messages')
const { tool } = require('@langchain/core/tools')
const { z } = require('zod')
const { prose } = require('./payloads.js')
const { serializeMessage, serializeTools, textOf, hasCacheMark } = require('./pricing.js')

const RECALL = 'recall_tool_result'
const MAX_RECALL_ATTEMPTS = 3

const callIdOf = (conv, ref) => `call_${conv}_${ref.replace(/[^A-Za-z0-9]/g, '_')}`
const needKey = (n) => `${n.ref}|${n.read ? 'read' : JSON.stringify(n.detail)}`
// The id in a stub (`mem=trm_…`), a recall note, or a one-line note (`mem_id='trm_…'`).
const MEM_ID = /mem(?:_id)?=['"]?(trm_[0-9a-f]+)/
const isRecallError = (t) => /^\[(tool_memory (error|not found)|recall: (no match|json_path|payload is not))/.test(t)

class Driver {
  constructor(conv) {
    this.conv = conv
    this.byRef = new Map()
    for (const t of conv.turns) {
      for (const s of t.steps) for (const c of s.calls || []) this.byRef.set(c.id, { ...c, callId: callIdOf(conv.name, c.id) })
    }
    this.byCallId = new Map([...this.byRef.values()].map((c) => [c.callId, c]))
    this.recallFor = new Map() // recall tool_call_id -> need key
    this.learned = new Map() // need key -> how it was met
    this.attempts = new Map() // need key -> recall attempts
    this.requests = []
    this.recallAnswers = []
    this.stats = { needs: 0, inPrompt: 0, byRecall: 0, lost: 0, recallTrips: 0, recallCalls: 0 }
    this.turn = -1
    this.step = 0
    this.seq = 0
  }

  startTurn(i) {
    this.turn = i
    this.step = 0
  }

  turnDone() {
    return this.step === this.conv.turns[this.turn].steps.length
  }

  needsOfStep() {
    const steps = this.conv.turns[this.turn].steps
    const out = [...(steps[this.step].needs || [])]
    const prev = steps[this.step - 1]
    if (prev && prev.calls) for (const c of prev.calls) out.push({ ref: c.id, detail: c.read, read: true })
    return out
  }

  locate(n, key, messages, toolNames) {
    const res = this.byRef.get(n.ref)
    if (!res) throw new Error(`script: unknown ref ${n.ref}`)
    let stubbedAnswer = null
    for (const m of messages) {
      if (m._getType() !== 'tool' || this.recallFor.get(m.tool_call_id) !== key) continue
      const t = textOf(m.content)
      if (isRecallError(t)) return { kind: 'error', text: t }
      if (MEM_ID.test(t) || t === '[cleared]') stubbedAnswer = t
      else return { kind: 'recalled' }
    }
    const m = messages.find((x) => x._getType() === 'tool' && x.tool_call_id === res.callId)
    if (!m) return { kind: 'missing' }
    const t = textOf(m.content)
    if (t === res.payload) return { kind: 'full' }
    const id = MEM_ID.exec(t)
    if (id && toolNames.includes(RECALL)) return { kind: 'stub', memId: id[1], retry: stubbedAnswer !== null }
    return { kind: 'lost', text: t.slice(0, 60) }
  }

  respond(messages, tools) {
    const toolNames = tools.map((t) => t.name)
    this.requests.push({
      tools: serializeTools(tools),
      toolNames,
      messages: messages.map(serializeMessage),
      marked: messages.map(hasCacheMark),
      turn: this.turn,
    })
    for (const m of messages) {
      if (m._getType() === 'tool' && this.recallFor.has(m.tool_call_id) && !this.recallAnswers.some((r) => r.id === m.tool_call_id)) {
        this.recallAnswers.push({ id: m.tool_call_id, key: this.recallFor.get(m.tool_call_id), text: textOf(m.content) })
      }
    }
    const step = this.conv.turns[this.turn].steps[this.step]
    if (!step) throw new Error(`script: model called after the end of turn ${this.turn}`)
    const recalls = []
    for (const n of this.needsOfStep()) {
      const key = needKey(n)
      if (this.learned.has(key)) continue
      const r = this.locate(n, key, messages, toolNames)
      const tries = this.attempts.get(key) || 0
      if (r.kind === 'full' || r.kind === 'recalled') {
        this.learned.set(key, r.kind)
        this.stats.needs++
        if (r.kind === 'full') this.stats.inPrompt++
        else this.stats.byRecall++
      } else if (r.kind === 'stub' && tries < MAX_RECALL_ATTEMPTS) {
        recalls.push({ key, memId: r.memId, detail: n.detail, retry: r.retry })
      } else {
        this.learned.set(key, 'lost')
        this.stats.needs++
        this.stats.lost++
      }
    }
    if (recalls.length) {
      // A recall answer that was itself compacted is fetched again one at a
      // time (a model would notice and slow down); first attempts go in parallel.
      const batch = recalls.some((r) => r.retry) ? recalls.slice(0, 1) : recalls
      const tool_calls = batch.map((r) => {
        const id = `call_recall_${++this.seq}`
        this.recallFor.set(id, r.key)
        this.attempts.set(r.key, (this.attempts.get(r.key) || 0) + 1)
        return { id, name: RECALL, args: { mem_id: r.memId, ...r.detail }, type: 'tool_call' }
      })
      this.stats.recallTrips++
      this.stats.recallCalls += tool_calls.length
      return new AIMessage({ content: '', tool_calls })
    }
    this.step++
    if (step.calls) {
      return new AIMessage({
        content: '',
        tool_calls: step.calls.map((c) => ({ id: callIdOf(this.conv.name, c.id), name: c.tool, args: c.args, type: 'tool_call' })),
      })
    }
    return new AIMessage(prose(`${this.conv.name}:${this.turn}`, step.answer))
  }
}

/** A scripted chat model: records each request and replies through the Driver. */
class ScriptedChatModel extends BaseChatModel {
  constructor(driver, tools = []) {
    super({})
    this.driver = driver
    this.boundTools = tools
  }
  _llmType() {
    return 'scripted'
  }
  bindTools(tools) {
    return new ScriptedChatModel(this.driver, tools)
  }
  async _generate(messages) {
    const message = this.driver.respond(messages, this.boundTools)
    return { generations: [{ text: typeof message.content === 'string' ? message.content : '', message }] }
  }
}

/** The conversation's application tools; each answers with its scripted payload. */
function appTools(conv, driver) {
  return Object.entries(conv.tools).map(([name, spec]) =>
    tool(
      async (_args, config) => {
        const c = driver.byCallId.get(config && config.toolCall && config.toolCall.id)
        if (!c) throw new Error(`script: no payload for ${name} call ${config && config.toolCall && config.toolCall.id}`)
        return c.payload
      },
      {
        name,
        description: spec.description,
        schema: z.object(Object.fromEntries(Object.entries(spec.args).map(([k]) => [k, z.string().describe(k)]))),
      },
    ),
  )
}

/**
 * Runs `conv` through `strategy` ({ build({ appTools, threadId }) -> { tools, middleware } })
 * with `driver` answering the model calls: each turn's user messages
 * (`usersOf(turn)`) start one invoke. Returns the driver: its recorded
 * requests and need statistics.
 */
async function replayWith(conv, strategy, driver, appToolsOf, usersOf) {
  const threadId = `bench-${conv.name}`
  const { tools, middleware } = strategy.build({ appTools: appToolsOf(driver), threadId })
  const agent = createAgent({ model: new ScriptedChatModel(driver), tools, systemPrompt: conv.system, middleware })
  let messages = []
  for (let i = 0; i < conv.turns.length; i++) {
    driver.startTurn(i)
    const out = await agent.invoke(
      { messages: [...messages, ...usersOf(conv.turns[i]).map((u) => new HumanMessage(u))] },
      { configurable: { thread_id: threadId }, recursionLimit: 10000 },
    )
    if (!driver.turnDone()) throw new Error(`${conv.name}/${strategy.name}: turn ${i} ended early`)
    messages = out.messages
  }
  driver.finalMessages = messages
  return driver
}

/** Runs a scripted conversation through `strategy`. */
const replay = (conv, strategy) => replayWith(conv, strategy, new Driver(conv), (driver) => appTools(conv, driver), (turn) => [turn.user])

module.exports = { replay, replayWith, Driver, ScriptedChatModel, RECALL, MEM_ID, isRecallError }
