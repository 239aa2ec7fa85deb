'use strict'
// toolPaletteMiddleware in a real langchain createAgent, driven by a scripted
// fake chat model whose bindTools is spied on: what is bound per model call,
// the forced choice, the guard, tool errors and interrupts.

const { createAgent, createMiddleware, tool } = require('langchain')
const { BaseChatModel } = require('@langchain/core/language_models/chat_models')
const { AIMessage, HumanMessage, ToolMessage } = require('@langchain/core/messages')
const { MemorySaver, Command, interrupt } = require('@langchain/langgraph')
const { z } = require('zod')
const { ROLES, StaticPaletteResolver } = require('..')
const { toolPaletteMiddleware, toolMemoryMiddleware } = require('../langchain')

// A chat model that answers from a script: each step is a list of tool calls
// ([name, args]) or a final text. It records what was bound on every call.
class ScriptedChatModel extends BaseChatModel {
  constructor(script) {
    super({})
    this.script = script
    this.step = 0
    this.bound = []
    this.seen = []
  }

  _llmType() {
    return 'scripted'
  }

  bindTools(tools, kwargs) {
    this.bound.push({ names: tools.map((t) => t.name), toolChoice: kwargs?.tool_choice })
    return this
  }

  async _generate(messages) {
    this.seen.push(messages)
    const step = this.script[this.step++] ?? 'done'
    const message =
      typeof step === 'string'
        ? new AIMessage({ content: step })
        : new AIMessage({
            content: '',
            tool_calls: step.map(([name, args], i) => ({ name, args: args ?? {}, id: `call_${this.step}_${i}`, type: 'tool_call' })),
          })
    return { generations: [{ text: typeof step === 'string' ? step : '', message }] }
  }
}

function spyLogger() {
  const messages = []
  return { messages, warn: jest.fn((m) => messages.push(m)) }
}

// Tools that record that they ran.
function makeTools() {
  const ran = []
  const make = (name, impl) =>
    tool(
      async (input) => {
        ran.push(name)
        return impl ? impl(input) : `${name} ok`
      },
      { name, description: `the ${name} tool`, schema: z.object({ q: z.string().optional() }) },
    )
  const tools = {
    search: make('search'),
    github_list_issues: make('github_list_issues'),
    github_create_issue: make('github_create_issue'),
    mcp__jira__search: make('mcp__jira__search'),
    apply_pricing_change: make('apply_pricing_change'),
    delete_repo: make('delete_repo'),
    recall_tool_result: make('recall_tool_result'),
    flaky: make('flaky', () => {
      throw new Error('upstream 503')
    }),
    ask_human: make('ask_human', () => `human said ${interrupt({ question: 'proceed?' })}`),
  }
  return { tools, list: Object.values(tools), ran }
}

const ROLE_TOOLS = {
  action: ['search', 'github_*'],
  default: ['search', 'mcp__jira__*', 'delete_repo'],
}

function agentWith(script, middleware, list, extra = {}) {
  const model = new ScriptedChatModel(script)
  jest.spyOn(model, 'bindTools')
  const agent = createAgent({ model, tools: list, middleware, ...extra })
  return { model, agent }
}

const ask = (agent, text = 'go', config) => agent.invoke({ messages: [new HumanMessage(text)] }, config)
const toolMessages = (result) => result.messages.filter((m) => ToolMessage.isInstance(m))

describe('toolPaletteMiddleware in createAgent', () => {
  test('binds each role its palette on every model call (glob entries, recall kept)', async () => {
    for (const [role, expected] of [
      ['action', ['search', 'github_list_issues', 'github_create_issue', 'recall_tool_result']],
      ['default', ['search', 'mcp__jira__search', 'delete_repo', 'recall_tool_result']],
    ]) {
      const { list } = makeTools()
      const logger = spyLogger()
      const { model, agent } = agentWith([[['search']], 'done'], [toolPaletteMiddleware({ roleTools: ROLE_TOOLS, role, logger })], list)
      const result = await ask(agent)
      expect(result.messages.at(-1).content).toBe('done')
      expect(model.bindTools).toHaveBeenCalledTimes(2)
      expect(model.bound.map((b) => b.names)).toEqual([expected, expected])
      expect(model.bound.every((b) => b.toolChoice === undefined)).toBe(true)
      expect(logger.warn).not.toHaveBeenCalled()
    }
  })

  test('without the middleware every tool is bound (the baseline the palette narrows)', async () => {
    const { list } = makeTools()
    const { model, agent } = agentWith(['done'], [], list)
    await ask(agent)
    expect(model.bound[0].names).toEqual(list.map((t) => t.name))
  })

  test('the role can be a function of state and runtime (here: the run context)', async () => {
    const { list } = makeTools()
    const role = jest.fn((state, runtime) => runtime.context?.role ?? ROLES.ACTION)
    const { model, agent } = agentWith(['done', 'done'], [toolPaletteMiddleware({ roleTools: ROLE_TOOLS, role })], list)
    await ask(agent, 'one', { context: { role: 'default' } })
    await ask(agent, 'two')
    expect(model.bound.map((b) => b.names)).toEqual([
      ['search', 'mcp__jira__search', 'delete_repo', 'recall_tool_result'],
      ['search', 'github_list_issues', 'github_create_issue', 'recall_tool_result'],
    ])
    expect(Array.isArray(role.mock.calls[0][0].messages)).toBe(true)
  })

  test('provider-side tools without a name are bound as they are', async () => {
    const { list } = makeTools()
    const webSearch = { type: 'web_search_preview' }
    const { model, agent } = agentWith(['done'], [toolPaletteMiddleware({ roleTools: { action: ['search'] } })], [...list, webSearch])
    jest.spyOn(model, 'bindTools').mockImplementation(function (tools, kwargs) {
      this.bound.push({ tools, toolChoice: kwargs?.tool_choice })
      return this
    })
    await ask(agent)
    const bound = model.bound[0].tools
    expect(bound.map((t) => t.name)).toEqual(['search', 'recall_tool_result', undefined])
    expect(bound[2]).toBe(webSearch)
  })

  test('a custom resolver is asked once per model call, with the role', async () => {
    const { list } = makeTools()
    const resolve = jest.fn((state, role, allTools) => allTools.filter((t) => t.name === 'search'))
    const { model, agent } = agentWith([[['search']], [['search']], 'done'], [toolPaletteMiddleware({ resolver: { resolve } })], list)
    await ask(agent)
    expect(model.bindTools).toHaveBeenCalledTimes(3)
    expect(resolve).toHaveBeenCalledTimes(3)
    for (const call of resolve.mock.calls) {
      expect(call[1]).toBe('action')
      expect(call[2].map((t) => t.name)).toEqual(list.map((t) => t.name))
    }
    expect(model.bound[2].names).toEqual(['search', 'recall_tool_result'])
  })

  test('an allowlist that matches no tool (a typo) or is empty fails closed: hidden tools never run, one warning says how to open them', async () => {
    for (const [allowlist, warning] of [
      [
        ['serach'],
        "[tool_palette] the allowlist for role 'action' matches none of the 9 tools ('serach': did you mean 'search'?); " +
          "binding only the always-on and forced tools (every other call is refused). Fix the allowlist, or list '*' to give the role every tool. Allowlist: [serach]",
      ],
      [[], "[tool_palette] the allowlist for role 'action' is empty; binding only the always-on and forced tools (every other call is refused). List the tools it may call, or ['*'] for every tool"],
    ]) {
      const { list, ran } = makeTools()
      const logger = spyLogger()
      const events = []
      const palette = toolPaletteMiddleware({ roleTools: { action: allowlist }, logger, onEvent: (e) => events.push(e) })
      const { model, agent } = agentWith([[['search'], ['delete_repo', { q: 'prod' }]], [['github_list_issues']], 'done'], [palette], list)
      const result = await ask(agent)
      expect(ran).toEqual([])
      expect(model.bound.map((b) => b.names)).toEqual(Array(3).fill(['recall_tool_result']))
      const refused = toolMessages(result)
      expect(refused.map((m) => m.status)).toEqual(['error', 'error', 'error'])
      expect(refused[1].content).toBe("[tool_palette: 'delete_repo' is not in the tool palette for role 'action'; it was not run. Available tools: [recall_tool_result]]")
      expect(events.filter((e) => e.type === 'toolCallRefused').map((e) => e.tool)).toEqual(['search', 'delete_repo', 'github_list_issues'])
      expect(logger.messages).toEqual([warning])
    }
  })

  test.each([
    ['throws', () => { throw new Error('policy service down') }, "failed (policy service down); binding only the always-on and forced tools (every other call is refused). Fix the resolver, or catch the error in it and return null to bind every tool"],
    ['rejects', async () => { throw new Error('policy service down') }, 'failed (policy service down); binding only'],
    ['returns undefined', () => {}, 'returned undefined (a missing return?); binding only'],
    ['returns a non-list', () => new Set(['search']), 'returned a Set, not a list of tools; binding only'],
    ['returns copies of the tools', (s, r, all) => all.map((t) => ({ ...t })), 'returned 9 tools, none of them in the tool list; binding only'],
  ])('a resolver that %s fails closed: a hidden delete_repo never runs, one warning names the cause', async (_, resolve, cause) => {
    const { list, ran } = makeTools()
    const logger = spyLogger()
    const { model, agent } = agentWith([[['delete_repo']], 'done', [['delete_repo']], 'done'], [toolPaletteMiddleware({ resolver: { resolve }, logger })], list)
    const result = await ask(agent)
    await ask(agent)
    expect(ran).toEqual([])
    expect(model.bound.map((b) => b.names)).toEqual(Array(4).fill(['recall_tool_result']))
    expect(toolMessages(result)[0].content).toBe("[tool_palette: 'delete_repo' is not in the tool palette for role 'action'; it was not run. Available tools: [recall_tool_result]]")
    expect(logger.messages).toEqual([expect.stringContaining(`[tool_palette] the palette resolver for role 'action' ${cause}`)])
  })

  test("a resolver's [] means no tools (the seed abstained to every tool); its null still means every tool", async () => {
    const { list, ran } = makeTools()
    const logger = spyLogger()
    const closed = agentWith([[['delete_repo'], ['search']], 'done'], [toolPaletteMiddleware({ resolver: { resolve: () => [] }, forcedToolChoice: 'search', logger })], list)
    await ask(closed.agent)
    expect(closed.model.bound[0]).toEqual({ names: ['search', 'recall_tool_result'], toolChoice: 'search' })
    expect(ran).toEqual(['search']) // the forced tool ran; delete_repo did not
    const open = makeTools()
    const opened = agentWith([[['delete_repo']], 'done'], [toolPaletteMiddleware({ resolver: { resolve: () => null }, logger })], open.list)
    await ask(opened.agent)
    expect(open.ran).toEqual(['delete_repo'])
    expect(logger.messages).toEqual([expect.stringContaining("forced tool choice 'search' is outside the palette")])
  })

  test.each([
    ['async () => role', async () => 'action', 'returned a Promise; role must be synchronous (look the role up before invoke and read it from runtime.context)'],
    ['() => undefined', () => undefined, 'returned undefined, not a role name'],
    ['() => 3', () => 3, 'returned number 3, not a role name'],
  ])("a role function's mistake (%s) fails closed even under unknownRole 'allow', and says what it returned", async (_, role, what) => {
    const { list, ran } = makeTools()
    const logger = spyLogger()
    const events = []
    const palette = toolPaletteMiddleware({ roleTools: { action: ['*'] }, unknownRole: 'allow', role, logger, onEvent: (e) => events.push(e) })
    const { model, agent } = agentWith([[['delete_repo'], ['search']], 'done'], [palette], list)
    const result = await ask(agent)
    expect(ran).toEqual([])
    expect(model.bound.map((b) => b.names)).toEqual([['recall_tool_result'], ['recall_tool_result']])
    expect(toolMessages(result)[0].content).toBe("[tool_palette: 'delete_repo' is not in the tool palette for role '(no role)'; it was not run. Available tools: [recall_tool_result]]")
    expect(logger.messages).toEqual([`[tool_palette] the role function ${what}; binding only the always-on and forced tools (every other call is refused)`])
    expect(events.filter((e) => e.type === 'unknownRole')).toEqual([])
  })

  test('no policy (no roleTools and no resolver, or an undefined one) is a TypeError: a role alone would have run delete_repo', () => {
    const fix =
      "pass roleTools (role names to lists of tool names, e.g. roleTools: { action: ['search'] }) or resolver (a ToolPaletteResolver); " +
      "with neither, every tool would be bound and run. For every tool, say so: roleTools: { action: ['*'] }"
    expect(() => toolPaletteMiddleware()).toThrow(new TypeError(`toolPaletteMiddleware(options): no options; ${fix}`))
    expect(() => toolPaletteMiddleware({})).toThrow(new TypeError(`toolPaletteMiddleware(options): no roleTools and no resolver; ${fix}`))
    expect(() => toolPaletteMiddleware({ role: 'action' })).toThrow(new TypeError(`toolPaletteMiddleware(options): no roleTools and no resolver; ${fix}`))
    expect(() => toolPaletteMiddleware({ roleTools: undefined, role: 'admin' })).toThrow(new TypeError(`toolPaletteMiddleware(options): roleTools is undefined; ${fix}`))
    expect(() => toolPaletteMiddleware({ resolver: null, forcedToolChoice: 'search' })).toThrow(new TypeError(`toolPaletteMiddleware(options): resolver is null; ${fix}`))
  })

  test("roleTools: { action: ['*'] } is the explicit way to bind every tool", async () => {
    const { list, ran } = makeTools()
    const { model, agent } = agentWith([[['delete_repo']], 'done'], [toolPaletteMiddleware({ roleTools: { action: ['*'] } })], list)
    await ask(agent)
    expect(model.bound[0].names).toEqual(list.map((t) => t.name))
    expect(ran).toEqual(['delete_repo'])
  })

  test('roleTools errors name toolPaletteMiddleware(options), the call the user made', () => {
    expect(() => toolPaletteMiddleware({ roleTools: { a: 'search' } })).toThrow(
      new TypeError(`toolPaletteMiddleware(options): roleTools['a'] is the string "search"; give a list of tool names, e.g. ["search"]`),
    )
    expect(() => toolPaletteMiddleware({ roleTools: new Map() })).toThrow(/^toolPaletteMiddleware\(options\): roleTools must be a plain object mapping role names to lists of tool names, got a Map$/)
    expect(() => toolPaletteMiddleware({ roleTools: { a: ['x*y'] } })).toThrow(/^toolPaletteMiddleware\(options\): roleTools\['a'\] holds 'x\*y'/)
  })

  test('a forced tool is bound and chosen until a ToolMessage from it exists, warned once', async () => {
    const { list, ran } = makeTools()
    const logger = spyLogger()
    const { model, agent } = agentWith(
      [[['search']], [['apply_pricing_change']], 'done'],
      [toolPaletteMiddleware({ roleTools: ROLE_TOOLS, forcedToolChoice: 'apply_pricing_change', logger })],
      list,
    )
    await ask(agent)
    const palette = ['search', 'github_list_issues', 'github_create_issue']
    expect(model.bound).toEqual([
      { names: [...palette, 'apply_pricing_change', 'recall_tool_result'], toolChoice: 'apply_pricing_change' },
      { names: [...palette, 'apply_pricing_change', 'recall_tool_result'], toolChoice: 'apply_pricing_change' },
      // released: a ToolMessage from apply_pricing_change now exists
      { names: [...palette, 'recall_tool_result'], toolChoice: undefined },
    ])
    expect(ran).toEqual(['search', 'apply_pricing_change']) // the forced tool is allowed to run
    expect(logger.warn).toHaveBeenCalledTimes(1)
    expect(logger.messages[0]).toMatch(/forced tool choice 'apply_pricing_change' is outside the palette for role 'action'/)
  })

  test('a forced tool inside the palette is not duplicated; a function can pick it', async () => {
    const { list } = makeTools()
    const forcedToolChoice = jest.fn(() => 'search')
    const { model, agent } = agentWith([[['search']], 'done'], [toolPaletteMiddleware({ roleTools: ROLE_TOOLS, forcedToolChoice })], list)
    await ask(agent)
    expect(model.bound[0]).toEqual({ names: ['search', 'github_list_issues', 'github_create_issue', 'recall_tool_result'], toolChoice: 'search' })
    expect(model.bound[1].toolChoice).toBeUndefined()
    expect(forcedToolChoice).toHaveBeenCalled()
  })

  test('alwaysInclude: [] lets the palette drop recall_tool_result; a custom list keeps other tools', async () => {
    const { list } = makeTools()
    const { model, agent } = agentWith(['done'], [toolPaletteMiddleware({ roleTools: { action: ['search'] }, alwaysInclude: [] })], list)
    await ask(agent)
    expect(model.bound[0].names).toEqual(['search'])
    const second = agentWith(['done'], [toolPaletteMiddleware({ roleTools: { action: ['search'] }, alwaysInclude: ['delete_repo'] })], makeTools().list)
    await ask(second.agent)
    expect(second.model.bound[0].names).toEqual(['search', 'delete_repo'])
  })

  test('the guard refuses a hidden tool the model names anyway: error ToolMessage, no side effect', async () => {
    const { list, ran } = makeTools()
    const { model, agent } = agentWith(
      [[['delete_repo', { q: 'prod' }], ['search']], 'done'],
      [toolPaletteMiddleware({ roleTools: ROLE_TOOLS, logger: spyLogger() })],
      list,
    )
    const result = await ask(agent)
    expect(ran).toEqual(['search'])
    const [refused, searched] = toolMessages(result)
    expect(refused.status).toBe('error')
    expect(refused.name).toBe('delete_repo')
    expect(refused.tool_call_id).toBe('call_1_0')
    expect(refused.content).toBe(
      "[tool_palette: 'delete_repo' is not in the tool palette for role 'action'; it was not run. " +
        'Available tools: [search, github_list_issues, github_create_issue, recall_tool_result]]',
    )
    expect(searched.content).toBe('search ok')
    // the model saw the refusal on its next call
    expect(model.seen[1].some((m) => ToolMessage.isInstance(m) && m.content.includes('not in the tool palette'))).toBe(true)
  })

  test("a role without an entry (default unknownRole 'deny'): a hidden delete_repo never runs; only recall_tool_result and a forced tool are bound", async () => {
    const { list, ran } = makeTools()
    const logger = spyLogger()
    const events = []
    const palette = toolPaletteMiddleware({ roleTools: ROLE_TOOLS, role: 'actoin', logger, onEvent: (e) => events.push(e) })
    const { model, agent } = agentWith([[['delete_repo', { q: 'prod' }], ['search']], 'done', [['delete_repo']], 'done'], [palette], list)
    const result = await ask(agent)
    await ask(agent)
    expect(ran).toEqual([])
    expect(model.bound.map((b) => b.names)).toEqual(Array(4).fill(['recall_tool_result']))
    const [refused, alsoRefused] = toolMessages(result)
    expect(refused.content).toBe("[tool_palette: 'delete_repo' is not in the tool palette for role 'actoin'; it was not run. Available tools: [recall_tool_result]]")
    expect(refused.status).toBe('error')
    expect(alsoRefused.content).toMatch(/^\[tool_palette: 'search' is not in the tool palette for role 'actoin'/)
    // one warning for the whole run, saying how to open the tools
    expect(logger.messages).toEqual([
      "[tool_palette] role 'actoin' has no entry in roleTools (did you mean 'action'?); roles: [action, default]; " +
        'binding only the always-on and forced tools (every other call is refused). ' +
        "Add roleTools['actoin'] to give it tools, or set unknownRole: 'allow' to give every role without an entry all tools",
    ])
    expect(events.filter((e) => e.type === 'unknownRole')).toEqual([{ type: 'unknownRole', role: 'actoin', policy: 'deny', roles: ['action', 'default'] }])
    expect(events.filter((e) => e.type === 'toolCallRefused').map((e) => e.tool)).toEqual(['delete_repo', 'search', 'delete_repo'])

    // a forced tool is still bound and runs; the rest stays refused (unknownRole: 'deny' said explicitly)
    const second = makeTools()
    const forced = agentWith(
      [[['search'], ['delete_repo']], 'done'],
      [toolPaletteMiddleware({ roleTools: ROLE_TOOLS, role: 'reviewer', unknownRole: 'deny', forcedToolChoice: 'search', logger: spyLogger() })],
      second.list,
    )
    await ask(forced.agent)
    expect(forced.model.bound[0]).toEqual({ names: ['search', 'recall_tool_result'], toolChoice: 'search' })
    expect(second.ran).toEqual(['search'])
  })

  test('failing closed holds after a restart too (the guard asks the policy for a call it did not see made)', async () => {
    // a role without an entry, an allowlist with a typo, an empty one
    for (const [i, roleTools] of [{ other: ['ask_human'] }, { action: ['ask_humna'] }, { action: [] }].entries()) {
      const { list, ran } = makeTools()
      const checkpointer = new MemorySaver()
      const config = { configurable: { thread_id: `closed-restart-${i}` } }
      const first = agentWith([[['ask_human']]], [toolPaletteMiddleware({ roleTools: { action: ['ask_human'] } })], list, { checkpointer })
      await ask(first.agent, 'go', config)
      const second = agentWith(['finished'], [toolPaletteMiddleware({ roleTools, role: 'action', logger: spyLogger() })], list, { checkpointer })
      const [answer] = toolMessages(await second.agent.invoke(new Command({ resume: 'yes' }), config))
      expect(answer.status).toBe('error')
      expect(answer.content).toMatch(/'ask_human' is not in the tool palette for role 'action'/)
      expect(ran).toEqual(['ask_human']) // only the first, interrupted run
    }
  })

  test("unknownRole 'allow' opens every tool to roles without an entry: no warning, one unknownRole event", async () => {
    const { list, ran } = makeTools()
    const logger = spyLogger()
    const events = []
    const palette = toolPaletteMiddleware({ roleTools: ROLE_TOOLS, role: 'ops', unknownRole: 'allow', logger, onEvent: (e) => events.push(e) })
    const { model, agent } = agentWith([[['delete_repo']], 'done', 'done'], [palette], list)
    await ask(agent)
    await ask(agent)
    expect(model.bound.map((b) => b.names)).toEqual(Array(3).fill(list.map((t) => t.name)))
    expect(ran).toEqual(['delete_repo'])
    expect(logger.warn).not.toHaveBeenCalled()
    expect(events).toEqual([{ type: 'unknownRole', role: 'ops', policy: 'allow', roles: ['action', 'default'] }])
  })

  test('without the guard the hidden tool runs: filtering what is bound is not a boundary', async () => {
    const { list, ran } = makeTools()
    const { agent } = agentWith([[['delete_repo']], 'done'], [toolPaletteMiddleware({ roleTools: ROLE_TOOLS, guard: false })], list)
    const result = await ask(agent)
    expect(ran).toEqual(['delete_repo'])
    expect(toolMessages(result)[0].content).toBe('delete_repo ok')
  })

  test('the guard judges a call by the palette bound when it was made, per role', async () => {
    const { list, ran } = makeTools()
    const role = (state, runtime) => runtime.context?.role ?? 'action'
    const { agent } = agentWith(
      [[['delete_repo']], 'done', [['delete_repo']], 'done'],
      [toolPaletteMiddleware({ roleTools: ROLE_TOOLS, role })],
      list,
    )
    const asAction = await ask(agent, 'one')
    expect(toolMessages(asAction)[0].status).toBe('error')
    const asDefault = await ask(agent, 'two', { context: { role: 'default' } })
    expect(toolMessages(asDefault)[0].content).toBe('delete_repo ok')
    expect(ran).toEqual(['delete_repo'])
  })

  test('a call is judged by the palette bound when the model made it, even if the role changed since', async () => {
    const { list, ran } = makeTools()
    // 'default' while the last message is the human's, 'action' once the model answered
    const role = (state) => (AIMessage.isInstance(state.messages.at(-1)) ? 'action' : 'default')
    const { model, agent } = agentWith([[['delete_repo']], 'done'], [toolPaletteMiddleware({ roleTools: ROLE_TOOLS, role })], list)
    const result = await ask(agent)
    expect(model.bound[0].names).toContain('delete_repo')
    expect(toolMessages(result)[0].content).toBe('delete_repo ok')
    expect(ran).toEqual(['delete_repo'])
  })

  test('two threads whose model reuses a tool-call id are judged each by its own palette', async () => {
    // Both model calls finish before either tool runs, with the same call id.
    let arrived = 0
    let release
    const barrier = new Promise((resolve) => (release = resolve))
    class SameIdModel extends ScriptedChatModel {
      async _generate(messages) {
        if (messages.some((m) => ToolMessage.isInstance(m))) return { generations: [{ text: 'done', message: new AIMessage('done') }] }
        if (++arrived === 2) release()
        await barrier
        const message = new AIMessage({ content: '', tool_calls: [{ name: 'delete_repo', args: {}, id: 'call_0', type: 'tool_call' }] })
        return { generations: [{ text: '', message }] }
      }
    }
    const { list, ran } = makeTools()
    const model = new SameIdModel([])
    const role = (state, runtime) => runtime.context.role
    const agent = createAgent({ model, tools: list, middleware: [toolPaletteMiddleware({ roleTools: ROLE_TOOLS, role })] })
    const [asDefault, asAction] = await Promise.all([
      ask(agent, 'a', { context: { role: 'default' }, configurable: { thread_id: 'A' } }),
      ask(agent, 'b', { context: { role: 'action' }, configurable: { thread_id: 'B' } }),
    ])
    expect(toolMessages(asDefault)[0].content).toBe('delete_repo ok')
    expect(toolMessages(asAction)[0].status).toBe('error')
    expect(ran).toEqual(['delete_repo'])
  })

  test('a throwing allowed tool still yields an error ToolMessage with the guard, as without it', async () => {
    const contents = []
    for (const middleware of [[toolPaletteMiddleware({ roleTools: { action: ['flaky'] } })], []]) {
      const { list } = makeTools()
      const { agent } = agentWith([[['flaky', { q: 'x' }]], 'recovered'], middleware, list)
      const result = await ask(agent)
      const [failed] = toolMessages(result)
      expect(failed.status).toBe('error')
      expect(failed.name).toBe('flaky')
      expect(failed.content).toContain('upstream 503')
      expect(result.messages.at(-1).content).toBe('recovered')
      contents.push(failed.content)
    }
    // the guard's message is the one LangChain writes when no wrapToolCall is present
    expect(contents[0]).toBe(contents[1])
    expect(contents[0]).toBe('Error: upstream 503\n Please fix your mistakes.')
  })

  test('a schema error in the arguments of an allowed tool is reported as LangChain does', async () => {
    const contents = []
    for (const middleware of [[toolPaletteMiddleware({ roleTools: { action: ['search'] } })], []]) {
      const { list } = makeTools()
      const { agent } = agentWith([[['search', { q: 42 }]], 'ok'], middleware, list)
      const result = await ask(agent)
      const [failed] = toolMessages(result)
      expect(failed.status).toBe('error')
      contents.push(failed.content)
    }
    // the same ToolInvocationError text; only the embedded stack trace differs
    const [head, trail] = [(c) => c.split('\n')[0], (c) => c.split('\n').at(-1)]
    expect(head(contents[0])).toBe(`Error invoking tool 'search' with kwargs {"q":42} with error: Error: Received tool input did not match expected schema`)
    expect(head(contents[0])).toBe(head(contents[1]))
    expect(contents[0]).toContain('Invalid input: expected string, received number')
    expect(trail(contents[0])).toBe(' Please fix the error and try again.')
    expect(trail(contents[1])).toBe(trail(contents[0]))
  })

  test('an inner middleware that fails on its own still fails the run, as without the guard', async () => {
    const broken = () =>
      createMiddleware({
        name: 'Broken',
        wrapToolCall: async () => {
          throw new Error('broken middleware')
        },
      })
    for (const middleware of [[toolPaletteMiddleware({ roleTools: { action: ['search'] } }), broken()], [broken()]]) {
      const { list, ran } = makeTools()
      const { agent } = agentWith([[['search']], 'done'], middleware, list)
      await expect(ask(agent)).rejects.toThrow('broken middleware')
      expect(ran).toEqual([])
    }
  })

  test('an interrupt inside an allowed tool still interrupts, and the run resumes', async () => {
    const { list, ran } = makeTools()
    const { agent } = agentWith(
      [[['ask_human']], 'finished'],
      [toolPaletteMiddleware({ roleTools: { action: ['ask_human'] } })],
      list,
      { checkpointer: new MemorySaver() },
    )
    const config = { configurable: { thread_id: 't1' } }
    const paused = await ask(agent, 'go', config)
    expect(paused.__interrupt__).toHaveLength(1)
    expect(paused.__interrupt__[0].value).toEqual({ question: 'proceed?' })
    expect(toolMessages(paused)).toHaveLength(0)
    const resumed = await agent.invoke(new Command({ resume: 'yes' }), config)
    expect(toolMessages(resumed)[0].content).toBe('human said yes')
    expect(resumed.messages.at(-1).content).toBe('finished')
    expect(ran).toEqual(['ask_human', 'ask_human'])
  })

  test('after a restart the guard re-judges a pending call from the current state', async () => {
    // The call was made by another middleware instance (another process, say):
    // no snapshot exists, so the guard asks the static policy.
    const { list, ran } = makeTools()
    const checkpointer = new MemorySaver()
    const config = { configurable: { thread_id: 't2' } }
    const first = agentWith([[['ask_human']]], [toolPaletteMiddleware({ roleTools: { action: ['ask_human', 'search'] } })], list, { checkpointer })
    await ask(first.agent, 'go', config)
    const second = agentWith(['finished'], [toolPaletteMiddleware({ roleTools: { action: ['search'] } })], list, { checkpointer })
    const resumed = await second.agent.invoke(new Command({ resume: 'yes' }), config)
    const [answer] = toolMessages(resumed)
    expect(answer.status).toBe('error')
    expect(answer.content).toMatch(/'ask_human' is not in the tool palette for role 'action'/)
    expect(ran).toEqual(['ask_human']) // only the first, interrupted run
  })

  test('works with toolMemoryMiddleware in either order', async () => {
    for (const order of ['palette first', 'memory first']) {
      const { list, ran } = makeTools()
      const mine = list.filter((t) => t.name !== 'recall_tool_result')
      const palette = toolPaletteMiddleware({ roleTools: { action: ['search'] } })
      // The memory middleware binds its recall tool on every call.
      const memory = toolMemoryMiddleware({ sizeChars: 0, evictChars: 0 })
      const middleware = order === 'palette first' ? [palette, memory] : [memory, palette]
      const { model, agent } = agentWith([[['search'], ['delete_repo']], 'done'], middleware, mine)
      const result = await ask(agent)
      // the memory middleware's recall tool survives the palette; nothing else hidden is bound
      expect(model.bound[0].names).toEqual(['search', 'recall_tool_result'])
      expect(model.bound[1].names).toEqual(['search', 'recall_tool_result'])
      expect(ran).toEqual(['search'])
      expect(toolMessages(result).map((m) => m.status ?? 'success')).toEqual(['success', 'error'])
    }
  })

  test('roleTools under another name is hinted as roleTools, not role', () => {
    expect(() => toolPaletteMiddleware({ roles: ROLE_TOOLS })).toThrow(
      new TypeError(
        'toolPaletteMiddleware(options): unknown option "roles"; did you mean "roleTools"? (a map of role names to lists of tool names; ' +
          'known: roleTools, unknownRole, resolver, role, forcedToolChoice, alwaysInclude, guard, logger, onEvent)',
      ),
    )
    for (const alias of ['allowlist', 'palette', 'tools', 'toolsByRole']) {
      expect(() => toolPaletteMiddleware({ [alias]: ROLE_TOOLS })).toThrow(new RegExp(`unknown option "${alias}"; did you mean "roleTools"\\?`))
    }
    // the map given as role
    expect(() => toolPaletteMiddleware({ role: ROLE_TOOLS })).toThrow(
      new TypeError('toolPaletteMiddleware(options): role must be a string or a function (state, runtime) => string; a map of role names to tool names is roleTools'),
    )
    // a near miss of another option keeps its own hint
    expect(() => toolPaletteMiddleware({ rol: 'action' })).toThrow(/unknown option "rol"; did you mean "role"\?/)
    expect(() => new StaticPaletteResolver({ roles: ROLE_TOOLS })).toThrow(/^new StaticPaletteResolver\(options\): unknown option "roles"; did you mean "roleTools"\?/)
  })

  test('malformed options throw a TypeError', () => {
    expect(() => toolPaletteMiddleware({ roleTools: { action: 'search' } })).toThrow(TypeError)
    expect(() => toolPaletteMiddleware({ roleTools: {}, resolver: new StaticPaletteResolver({ roleTools: {} }) })).toThrow(/not both/)
    expect(() => toolPaletteMiddleware({ resolver: {} })).toThrow(/resolve\(state, role, allTools\)/)
    const some = { action: ['search'] }
    expect(() => toolPaletteMiddleware({ roleTools: some, role: 3 })).toThrow(/role must be a string or a function/)
    expect(() => toolPaletteMiddleware({ roleTools: some, forcedToolChoice: 3 })).toThrow(/forcedToolChoice must be a tool name/)
    expect(() => toolPaletteMiddleware({ roleTools: some, guard: 'yes' })).toThrow(/guard must be a boolean/)
    expect(() => toolPaletteMiddleware({ roleTools: some, alwaysInclude: 'recall_tool_result' })).toThrow(/alwaysInclude must be an array/)
    expect(() => toolPaletteMiddleware({ roleTools: some, logger: {} })).toThrow(
      new TypeError('toolPaletteMiddleware(options): logger must be an object with a warn(message) method (got object)'),
    )
    expect(() => toolPaletteMiddleware({ roleTools: ROLE_TOOLS, unknownRole: 'block' })).toThrow(/^toolPaletteMiddleware\(options\): unknownRole must be one of 'allow', 'deny'/)
    expect(() => toolPaletteMiddleware({ roleTools: ROLE_TOOLS, unknownRole: 'warn' })).toThrow(/^toolPaletteMiddleware\(options\): unknownRole 'warn' was removed: .* pass unknownRole: 'allow' to give it every tool$/)
    expect(() => toolPaletteMiddleware({ unknownRole: 'deny' })).toThrow(/unknownRole applies to roles missing from roleTools; pass roleTools too/)
    expect(() => toolPaletteMiddleware({ resolver: new StaticPaletteResolver({ roleTools: {} }), unknownRole: 'deny' })).toThrow(/a custom resolver decides for itself/)
    expect(() => toolPaletteMiddleware({ alwaysInclude: [makeTools().tools.search] })).toThrow(/got a tool object at \[0\]; pass its name: alwaysInclude: \["search"\]/)
    expect(() => toolPaletteMiddleware(null)).toThrow(new TypeError('toolPaletteMiddleware(options): expected an options object, got null'))
    expect(toolPaletteMiddleware({ roleTools: some }).name).toBe('toolPaletteMiddleware')
    expect(toolPaletteMiddleware({ roleTools: some, guard: false }).wrapToolCall).toBeUndefined()
  })
})
