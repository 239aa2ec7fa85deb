'use strict'
// Options fail closed everywhere (one validation helper, the caller's name in
// every message, the closest valid key suggested), and the middlewares report
// through `logger` and `onEvent` in a real createAgent run.

const { Ledger, resolvePalette, applyPalette, StaticPaletteResolver } = require('..')
const { toolMemoryMiddleware, toolMemoryPreModelHook, toolPaletteMiddleware, createRecallToolResultTool, compactToolMessages } = require('../langchain')
const { createAgent } = require('langchain')
const { AIMessage, HumanMessage, ToolMessage } = require('@langchain/core/messages')
const { tool } = require('@langchain/core/tools')
const { z } = require('zod')
const { ScriptedChatModel, textOf } = require('./support/scripted-model.js')

const page = (n) => `Page ${n}\n` + `line of page ${n} with some words in it.\n`.repeat(500) // ~ 20,000 chars
const pageTool = tool(async ({ n }) => page(n), { name: 'get_page', description: 'A page.', schema: z.object({ n: z.number() }) })
const bigTool = tool(async () => 'x'.repeat(100000), { name: 'export', description: 'A large export.', schema: z.object({}) })
const adminTool = tool(async () => 'deleted everything', { name: 'admin_delete', description: 'Dangerous.', schema: z.object({}) })
const calls = (...cs) => () => new AIMessage({ content: '', tool_calls: cs.map(([id, name, args]) => ({ id, name, args, type: 'tool_call' })) })
const say = (content) => () => new AIMessage(content)
const thread = (id) => ({ configurable: { thread_id: id } })
const user = (content) => ({ messages: [new HumanMessage(content)] })

describe('unknown options: a TypeError naming the function, with the closest valid key', () => {
  test.each([
    [() => toolPaletteMiddleware({ roletools: { action: ['a'] } }), /^toolPaletteMiddleware\(options\): unknown option "roletools"; did you mean "roleTools"\?/],
    [() => toolPaletteMiddleware({ roleTools: { action: ['a'] }, gaurd: false }), /^toolPaletteMiddleware\(options\): unknown option "gaurd"; did you mean "guard"\?/],
    [() => toolPaletteMiddleware({ roleTools: { action: ['a'] }, onEvent: 'x' }), /^toolPaletteMiddleware\(options\): onEvent must be a function/],
    [() => new StaticPaletteResolver({ roleTools: {}, loger: console }), /^new StaticPaletteResolver\(options\): unknown option "loger"; did you mean "logger"\?/],
    [() => new Ledger({ maxbytes: 10 }), /^new Ledger\(options\): unknown option "maxbytes"; did you mean "maxBytes"\?/],
    // A name without its unit: the name with it.
    [() => new Ledger({ ttl: 60 }), /^new Ledger\(options\): unknown option "ttl"; did you mean "ttlSeconds"\?/],
    [() => new Ledger().recordSync({ toolCallId: 'a', toolName: 't', content: 'x', ttl: 5 }), /^Ledger.recordSync\(input\): unknown option "ttl"; did you mean "ttlSeconds"\?/],
    [() => new Ledger().fetchSync('trm_0123456789ab', { json_path: 'a' }), /^Ledger.fetchSync\(memId, options\): unknown option "json_path"; did you mean "jsonPath"\?/],
    [() => new Ledger().recordSync({ toolCallId: 'a', toolName: 't', contents: 'x' }), /^Ledger.recordSync\(input\): unknown option "contents"; did you mean "content"\?/],
    [() => toolMemoryMiddleware({ ledger: { fetch() {} } }), /^toolMemoryMiddleware\(options\): ledger must be a Ledger or an object with record\(\), fetch\(\), handle\(\), stub\(\) \(missing: record, handle, stub\)/],
    [() => toolMemoryPreModelHook({ ledger: 'ledger' }), /^toolMemoryPreModelHook\(options\): ledger must be a Ledger/],
    [() => toolMemoryMiddleware({ namespace: 3 }), /^toolMemoryMiddleware\(options\): namespace must be well-formed text \(a string without lone surrogates\) or a function of the run config \(got number 3\)/],
    [() => createRecallToolResultTool({}), /^createRecallToolResultTool\(ledger, options\): ledger must be a Ledger or an object with fetch\(\) \(missing: fetch\)/],
    [() => createRecallToolResultTool(new Ledger(), { namespce: 'x' }), /^createRecallToolResultTool\(ledger, options\): unknown option "namespce"; did you mean "namespace"\?/],
  ])('%#', (make, message) => {
    expect(make).toThrow(TypeError)
    expect(make).toThrow(message)
  })

  test('the async entry points reject (never throw synchronously) with the same TypeError', async () => {
    const ledger = new Ledger()
    const fetching = ledger.fetch('trm_0123456789ab', { maxchars: 3 })
    await expect(fetching).rejects.toThrow(/^Ledger.fetch\(memId, options\): unknown option "maxchars"; did you mean "maxChars"\?/)
    await expect(ledger.stub('trm_0123456789ab', { preview: 3 })).rejects.toThrow(/unknown option "preview"; did you mean "previewChars"\?/)
    await expect(ledger.has('trm_0123456789ab', { namespce: 'a' })).rejects.toThrow(/^Ledger.has\(memId, options\): unknown option "namespce"; did you mean "namespace"\?/)
    await expect(Ledger.open({ stor: 'sqlite::memory:' })).rejects.toThrow(/^Ledger.open\(options\): unknown option "stor"; did you mean "store"\?/)
    await expect(resolvePalette({}, 'action', [], { roleTool: {} })).rejects.toThrow(/^resolvePalette\(state, role, allTools, options\): unknown option "roleTool"; did you mean "roleTools"\?/)
    await expect(applyPalette({ allTool: [] })).rejects.toThrow(/^applyPalette\(input\): unknown option "allTool"; did you mean "allTools"\?/)
    await expect(compactToolMessages([], { record() {} })).rejects.toThrow(/^compactToolMessages\(messages, ledger, options\): ledger must be .*\(missing: stub\)/)
    // A Proxy whose keys cannot be read is a TypeError too, not a raw error.
    const hostile = new Proxy({}, { ownKeys() { throw new Error('boom') } })
    await expect(compactToolMessages([], ledger, hostile)).rejects.toThrow(TypeError)
  })

  test('a valid option set is accepted as before', () => {
    expect(() => new Ledger({ maxBytes: 1 << 20, previewChars: 100 })).not.toThrow()
    expect(typeof toolPaletteMiddleware({ roleTools: { action: ['a'] }, guard: true, logger: console, onEvent: () => {} }).name).toBe('string')
  })
})

describe('onEvent and logger in a real createAgent run', () => {
  test("a recall's `error` flag: set for an answer with nothing of the result, not for a pattern's or a count's header", async () => {
    const events = []
    const recallOf = (id, args) => (messages) => {
      const stub = textOf(messages.find((m) => m.type === 'tool' && m.tool_call_id === 'p1').content)
      const memId = /mem=(trm_[0-9a-f]+)/.exec(stub)[1]
      return calls([id, 'recall_tool_result', { mem_id: memId, ...args }])()
    }
    const script = [
      calls(['p1', 'get_page', { n: 1 }]),
      calls(['p2', 'get_page', { n: 2 }]), // p1 is seen here, and compacted from the next call on
      recallOf('r1', { pattern: 'line of page' }),
      recallOf('r2', { pattern: 'page 1 with', format: 'count' }),
      recallOf('r3', { pattern: 'no such words' }),
      recallOf('r4', { json_path: '$.a' }),
      say('done'),
    ]
    const agent = createAgent({
      model: new ScriptedChatModel(script, { calls: [] }),
      tools: [pageTool],
      middleware: [toolMemoryMiddleware({ compactAfter: 'seen', sizeChars: 8000, onEvent: (e) => events.push(e) })],
    })
    await agent.invoke(user('go'), thread('error-flags'))
    const recalled = events.filter((e) => e.type === 'recalled')
    expect(recalled.map((e) => [e.slice, e.error])).toEqual([
      ['pattern', false],
      ['pattern', false],
      ['pattern', true],
      ['json_path', true],
    ])
  })

  test('the memory middleware reports each compaction once and every recall', async () => {
    const events = []
    const log = { calls: [] }
    const script = [
      calls(['p1', 'get_page', { n: 1 }]),
      calls(['g', 'export', {}]),
      (messages) => {
        const stub = textOf(messages.find((m) => m.type === 'tool' && m.tool_call_id === 'g').content)
        const memId = /mem=(trm_[0-9a-f]+)/.exec(stub)[1]
        return calls(['r1', 'recall_tool_result', { mem_id: memId, offset: 0, max_chars: 10 }])()
      },
      calls(['p2', 'get_page', { n: 2 }]),
      say('done'),
    ]
    const agent = createAgent({
      model: new ScriptedChatModel(script, log),
      tools: [pageTool, bigTool],
      middleware: [toolMemoryMiddleware({ compactAfter: 'seen', sizeChars: 8000, onEvent: (e) => events.push(e) })],
    })
    await agent.invoke(user('go'), thread('events'))
    const compacted = events.filter((e) => e.type === 'compacted')
    // p1 once (seen), g once (evicted at first sight), p2 is never seen by a later call.
    expect(compacted.map((e) => [e.toolCallId, e.kind])).toEqual([
      ['p1', 'stub'],
      ['g', 'evict'],
    ])
    const g = compacted[1]
    expect(g).toMatchObject({ toolName: 'export', namespace: 'events', chars: 100000 })
    expect(g.memId).toMatch(/^trm_[0-9a-f]{12}$/)
    expect(g.compactedChars).toBeLessThan(4000)
    const recalled = events.filter((e) => e.type === 'recalled')
    expect(recalled).toEqual([{ type: 'recalled', memId: g.memId, namespace: 'events', slice: 'range', chars: textOf(log.calls[3].messages.find((m) => m.tool_call_id === 'r1').content).length, refilled: false, error: false }])
  })

  test('the palette middleware reports hidden tools and refused calls', async () => {
    const events = []
    const agent = createAgent({
      model: new ScriptedChatModel([calls(['a1', 'admin_delete', {}]), say('ok')]),
      tools: [pageTool, adminTool],
      middleware: [toolPaletteMiddleware({ roleTools: { action: ['get_page'] }, onEvent: (e) => events.push(e) })],
    })
    const out = await agent.invoke(user('go'), thread('palette-events'))
    expect(events.filter((e) => e.type === 'toolsHidden')[0]).toEqual({ type: 'toolsHidden', role: 'action', hidden: ['admin_delete'], bound: 1 })
    expect(events.filter((e) => e.type === 'toolCallRefused')).toEqual([{ type: 'toolCallRefused', role: 'action', tool: 'admin_delete', toolCallId: 'a1' }])
    expect(out.messages.find((m) => m.tool_call_id === 'a1').content).toMatch(/not in the tool palette/)
  })

  test('a result that cannot be recorded: warned through the logger once, and a large one is never sent in full', async () => {
    const warnings = []
    const events = []
    const ledger = new Ledger()
    ledger.record = async () => {
      throw new Error('store unavailable')
    }
    const log = { calls: [] }
    const agent = createAgent({
      model: new ScriptedChatModel([calls(['p1', 'get_page', { n: 1 }]), calls(['g', 'export', {}]), calls(['p2', 'get_page', { n: 2 }]), say('done')], log),
      tools: [pageTool, bigTool],
      middleware: [toolMemoryMiddleware({ ledger, compactAfter: 'seen', sizeChars: 8000, logger: { warn: (m) => warnings.push(m) }, onEvent: (e) => events.push(e) })],
    })
    await agent.invoke(user('go'), thread('failing'))
    // The medium page is sent in full; the 100 KB export is a placeholder with its head.
    const last = log.calls[3].messages
    expect(textOf(last.find((m) => m.tool_call_id === 'p1').content)).toBe(page(1))
    const g = textOf(last.find((m) => m.tool_call_id === 'g').content)
    expect(g).toMatch(/^\[symfonic.tool_memory v1\] result not archived/)
    // The model reads a fixed reason; the error's own words go to the app.
    expect(g).toContain('could not be stored for recall (the store failed).')
    expect(g).not.toContain('store unavailable')
    expect(events.find((e) => e.type === 'recordFailed' && e.toolCallId === 'g').error).toContain('store unavailable')
    expect(g.length).toBeLessThan(3000)
    // Each failing result is warned once, however many calls it fails on.
    expect(warnings.filter((w) => w.includes(' g ')).length).toBe(1)
    expect(warnings.filter((w) => w.includes(' p1 ')).length).toBe(1)
    expect(events.filter((e) => e.type === 'recordFailed').map((e) => e.toolCallId).sort()).toEqual(['g', 'p1'])
  })

  test('an onEvent that throws is reported and never breaks the agent', async () => {
    const warnings = []
    const agent = createAgent({
      model: new ScriptedChatModel([calls(['p1', 'get_page', { n: 1 }]), calls(['p2', 'get_page', { n: 2 }]), say('done')]),
      tools: [pageTool],
      middleware: [
        toolMemoryMiddleware({
          compactAfter: 'seen',
          logger: { warn: (m) => warnings.push(m) },
          onEvent: () => {
            throw new Error('metrics down')
          },
        }),
      ],
    })
    const out = await agent.invoke(user('go'), thread('throwing'))
    expect(out.messages[out.messages.length - 1].content).toBe('done')
    expect(warnings.some((w) => w.includes('onEvent threw (metrics down)'))).toBe(true)
  })
})

describe('compactToolMessages reports too', () => {
  test('events once per result and kind, across calls, for one callback', async () => {
    const events = []
    const ledger = new Ledger()
    const list = [
      new HumanMessage('go'),
      new AIMessage({ content: '', tool_calls: [{ id: 'a', name: 'read', args: {}, type: 'tool_call' }] }),
      new ToolMessage({ content: page(1), tool_call_id: 'a', name: 'read' }),
      new AIMessage('done'),
    ]
    const onEvent = (e) => events.push(e)
    for (let i = 0; i < 3; i++) await compactToolMessages(list, ledger, { compactAfter: 'seen', onEvent })
    expect(events.map((e) => [e.type, e.toolCallId, e.kind])).toEqual([['compacted', 'a', 'stub']])
  })
})

describe('a clear load error', () => {
  const { spawnSync } = require('node:child_process')
  const fs = require('node:fs')
  const os = require('node:os')
  const path = require('node:path')
  const load = (entry, env = {}) => {
    const script = `try { require(${JSON.stringify(entry)}) } catch (e) { console.log(JSON.stringify({ message: e.message, code: e.code, cause: String(e.cause && e.cause.message) })) }`
    const r = spawnSync(process.execPath, ['-e', script], { env: { ...process.env, ...env }, encoding: 'utf8' })
    return JSON.parse(r.stdout)
  }
  // The package as installed: its files, a package.json (with `optionalDependencies`
  // as `napi prepublish` writes them, or without, as in a checkout), and no binary.
  const installed = (optionalDependencies) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'symfonic-load-'))
    const root = path.join(__dirname, '..')
    for (const f of ['index.js', 'binding.js', 'lib']) fs.cpSync(path.join(root, f), path.join(dir, f), { recursive: true })
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))
    if (optionalDependencies) pkg.optionalDependencies = optionalDependencies
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(pkg))
    return dir
  }

  test('when no binary loads, the error names the platform, the package, the fix and the override; the causes stay', () => {
    const out = load(require.resolve('..'), { NAPI_RS_NATIVE_LIBRARY_PATH: '/nonexistent/symfonic-core.node' })
    expect(out.code).toBe('ERR_SYMFONIC_NATIVE_BINDING')
    expect(out.message).toContain(`(${process.platform}-${process.arch}`)
    expect(out.message).toMatch(/@symfonic\/core-linux-x64-(gnu|musl)|@symfonic\/core-[a-z0-9-]+/)
    expect(out.message).toContain('NAPI_RS_NATIVE_LIBRARY_PATH')
    expect(out.message).not.toMatch(/npm has a bug/)
    expect(out.cause).toMatch(/Cannot find native binding/)
  })

  test('from a checkout or a local tarball (before the first release), it says how to build or pack the binary', () => {
    const dir = installed(null)
    try {
      const out = load(dir)
      const { version } = require('../package.json')
      expect(out.code).toBe('ERR_SYMFONIC_NATIVE_BINDING')
      expect(out.message).toContain('This copy is a checkout or a local tarball, not the package from the npm registry, so no platform package comes with it.')
      expect(out.message).toMatch(/In a checkout: npm install builds symfonic-core\.[a-z0-9-]+\.node \(with a Rust toolchain/)
      expect(out.message).toMatch(new RegExp(`npm install <checkout>/pack/symfonic-core-${version.replace(/\./g, '\\.')}\\.tgz <checkout>/pack/symfonic-core-[a-z0-9-]+-${version.replace(/\./g, '\\.')}\\.tgz;`))
      expect(out.message).toContain('from the first release on: npm install @symfonic/core')
      expect(out.message).not.toContain('--include=optional') // it cannot work before there is a release
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  test('from the registry, it says to install again with the optional dependencies, or that the platform has no binary', () => {
    const triple = /optional dependency @symfonic\/core-([a-z0-9-]+)/.exec(load(require.resolve('..'), { NAPI_RS_NATIVE_LIBRARY_PATH: '/nonexistent/x.node' }).message)[1]
    const listed = installed({ [`@symfonic/core-${triple}`]: '0.1.0', '@symfonic/core-other-os': '0.1.0' })
    const unlisted = installed({ '@symfonic/core-other-os': '0.1.0' })
    try {
      const a = load(listed)
      expect(a.message).toContain('Fix: install again without omitting optional dependencies (npm install --include=optional @symfonic/core)')
      expect(a.message).not.toContain('pack:local')
      const b = load(unlisted)
      expect(b.message).toContain(`There is no prebuilt binary for ${triple}: build from source with a Rust toolchain`)
    } finally {
      fs.rmSync(listed, { recursive: true, force: true })
      fs.rmSync(unlisted, { recursive: true, force: true })
    }
  })
})
