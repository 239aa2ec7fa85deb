'use strict'
// Replays a recorded agent conversation (fixtures/trajectories) call by call
// through a real `createAgent` with each strategy's middleware, and records
// every request the model receives, as harness.js does for the scripted ones.
//
// The model answers each call with the assistant message recorded for it;
// each tool answers with its recorded output. Before answering, the model
// meets the needs of that message (needs.js): a fact it uses that appears
// only in an earlier tool result. A need is met
//   - for free when the fact is anywhere in the prompt (the result in full,
//     a stub's preview, an earlier recall answer);
//   - by one recall round-trip when a result holding it is a stub or a note
//     with a `trm_…` id and `recall_tool_result` is bound: an extra model call
//     that recalls it (several needs of one message in one call), answered by
//     the strategy's own recall tool; the next call carries the answer;
//   - never otherwise (a `[cleared]` placeholder, no recall tool): lost.
// A recall asks for the whole result when its size is at most
// FULL_RECALL_CHARS, for the windows around the fact (`query`) otherwise.

const fs = require('node:fs')
const path = require('node:path')
const { AIMessage } = require('@langchain/core/messages')
const { tool } = require('@langchain/core/tools')
const { z } = require('zod')
const { serializeMessage, serializeTools, textOf, hasCacheMark } = require('./pricing.js')
const { needsOf, factsOf } = require('./needs.js')

// harness.js replays through any driver with startTurn, turnDone and respond(messages, tools).
const { RECALL, MEM_ID, isRecallError, replayWith } = require('./harness.js')

const MAX_RECALL_ATTEMPTS = 3
const FULL_RECALL_CHARS = 1500
const DIR = path.join(__dirname, '..', '..', 'fixtures', 'trajectories')

/** The recorded conversations of fixtures/trajectories, as replay scripts. */
function recordedConversations(dir = DIR) {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => scriptOf(JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'))))
}

// Turns: consecutive user messages, then the assistant messages answering them
// (each with its tool results), up to the next user message.
function scriptOf(rec) {
  const ms = rec.messages
  const needs = needsOf(ms)
  const results = new Map(ms.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, m.content]))
  const tools = new Map()
  const system = ms.filter((m) => m.role === 'system').map((m) => m.content).join('\n\n')
  const turns = []
  let turn = null
  let lastAssistant = -1
  ms.forEach((m, i) => {
    if (m.role === 'assistant') lastAssistant = i
  })
  ms.forEach((m, i) => {
    if (m.role === 'user') {
      if (turn === null || turn.steps.length > 0) turns.push((turn = { users: [], steps: [] }))
      turn.users.push(m.content)
    } else if (m.role === 'assistant') {
      if (turn === null) turns.push((turn = { users: [], steps: [] }))
      // The last call's answer ends the conversation: its tool calls would never be read.
      const calls = i === lastAssistant ? [] : (m.tool_calls || []).filter((c) => results.has(c.id))
      for (const c of calls) {
        const keys = tools.get(c.name) || new Set()
        for (const k of Object.keys(c.args || {})) keys.add(k)
        tools.set(c.name, keys)
      }
      turn.steps.push({ content: m.content || '', calls: calls.map((c) => ({ ...c, payload: results.get(c.id) })), needs: needs.get(i) || [] })
    }
  })
  // User messages after the last answer started no model call.
  while (turns.length > 0 && turns[turns.length - 1].steps.length === 0) turns.pop()
  const calls = turns.reduce((a, t) => a + t.steps.length, 0)
  return { name: rec.id, title: rec.agent, kind: rec.kind, source: rec.source, recorded: true, system, tools, turns, calls, stats: rec.stats }
}

// Facts present in a prompt: every message's distinctive tokens, cached per message object.
const factCache = new WeakMap()
function factsIn(m) {
  const hit = factCache.get(m)
  if (hit !== undefined && hit.content === m.content) return hit.facts
  const text = textOf(m.content) + (m.tool_calls && m.tool_calls.length ? JSON.stringify(m.tool_calls.map((c) => c.args)) : '')
  const facts = factsOf(text)
  factCache.set(m, { content: m.content, facts })
  return facts
}

class RecordedDriver {
  constructor(conv) {
    this.conv = conv
    this.payloads = new Map()
    for (const t of conv.turns) for (const s of t.steps) for (const c of s.calls) this.payloads.set(c.id, c.payload)
    this.requests = []
    this.recallAnswers = []
    this.recallRequests = [] // indices of the requests answered with a recall
    this.recallFor = new Set()
    this.attempts = new Map()
    this.stats = { needs: 0, inPrompt: 0, byRecall: 0, lost: 0, recallTrips: 0, recallCalls: 0 }
    this.turn = -1
    this.step = 0
    this.seq = 0
    this.pendingRecall = new Set() // facts a recall was issued for (met once the answer is read)
  }

  startTurn(i) {
    this.turn = i
    this.step = 0
  }

  turnDone() {
    return this.step === this.conv.turns[this.turn].steps.length
  }

  respond(messages, tools) {
    const toolNames = tools.map((t) => t.name)
    this.requests.push({ tools: serializeTools(tools), toolNames, messages: messages.map(serializeMessage), marked: messages.map(hasCacheMark), turn: this.turn })
    for (const m of messages) {
      if (m._getType() === 'tool' && this.recallFor.has(m.tool_call_id) && !this.recallAnswers.some((r) => r.id === m.tool_call_id)) {
        this.recallAnswers.push({ id: m.tool_call_id, text: textOf(m.content) })
      }
    }
    const step = this.conv.turns[this.turn].steps[this.step]
    if (!step) throw new Error(`${this.conv.name}: model called after the end of turn ${this.turn}`)
    const recalls = []
    if (step.needs.length) {
      const present = new Set()
      for (const m of messages) for (const f of factsIn(m)) present.add(f)
      const byId = new Map()
      for (const m of messages) if (m._getType() === 'tool') byId.set(m.tool_call_id, m)
      for (const n of step.needs) {
        if (n.done) continue
        if (present.has(n.fact)) {
          n.done = true
          this.stats.needs++
          if (this.pendingRecall.has(n.fact)) this.stats.byRecall++
          else this.stats.inPrompt++
          continue
        }
        const tries = this.attempts.get(n.fact) || 0
        let target = null
        if (toolNames.includes(RECALL) && tries < MAX_RECALL_ATTEMPTS) {
          for (let k = n.sources.length - 1; k >= 0 && target === null; k--) {
            const m = byId.get(n.sources[k])
            const id = m && MEM_ID.exec(textOf(m.content))
            if (id) target = { memId: id[1], chars: this.payloads.get(n.sources[k]).length }
          }
        }
        if (target === null) {
          n.done = true
          this.stats.needs++
          this.stats.lost++
          continue
        }
        recalls.push({ fact: n.fact, ...target })
      }
    }
    if (recalls.length) {
      // One recall per result (the windows of several facts of one result come from one query each).
      const tool_calls = recalls.map((r) => {
        const id = `call_recall_${++this.seq}`
        this.recallFor.add(id)
        this.pendingRecall.add(r.fact)
        this.attempts.set(r.fact, (this.attempts.get(r.fact) || 0) + 1)
        const args = r.chars <= FULL_RECALL_CHARS ? { mem_id: r.memId, format: 'full' } : { mem_id: r.memId, query: r.fact }
        return { id, name: RECALL, args, type: 'tool_call' }
      })
      // Several facts of one small result: one full read is enough.
      const seen = new Set()
      const unique = tool_calls.filter((c) => {
        const key = JSON.stringify(c.args)
        if (seen.has(key)) return false
        seen.add(key)
        return true
      })
      this.stats.recallTrips++
      this.stats.recallCalls += unique.length
      this.recallRequests.push(this.requests.length - 1)
      return new AIMessage({ content: '', tool_calls: unique })
    }
    this.step++
    if (step.calls.length) {
      return new AIMessage({ content: step.content, tool_calls: step.calls.map((c) => ({ id: c.id, name: c.name, args: c.args || {}, type: 'tool_call' })) })
    }
    return new AIMessage(step.content)
  }
}

// The recorded tools: each answers with the recorded output of the call. Their
// schemas are minimal (the recordings do not carry the real ones).
function recordedTools(conv, driver, describe = (name) => `${name} (recorded)`) {
  return [...conv.tools].map(([name, keys]) =>
    tool(
      async (_args, config) => {
        const id = config && config.toolCall && config.toolCall.id
        if (!driver.payloads.has(id)) throw new Error(`${conv.name}: no recorded output for ${name} call ${id}`)
        return driver.payloads.get(id)
      },
      { name, description: describe(name), schema: z.object(Object.fromEntries([...keys].map((k) => [k, z.unknown().optional()]))) },
    ),
  )
}

/**
 * Replays `conv` through `strategy`; returns the driver (requests, needs statistics).
 * `describe(name)`: each tool's description (a test varies the definitions' size with it).
 */
async function replayRecorded(conv, strategy, { describe } = {}) {
  for (const t of conv.turns) for (const s of t.steps) for (const n of s.needs) delete n.done
  return replayWith(conv, strategy, new RecordedDriver(conv), (driver) => recordedTools(conv, driver, describe), (turn) => turn.users)
}

module.exports = { recordedConversations, replayRecorded, RecordedDriver, isRecallError, scriptOf }
