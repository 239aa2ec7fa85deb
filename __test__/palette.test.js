'use strict'
// Tool palettes through the package entry: the static resolver, resolvePalette
// and applyPalette (the agent loop's rules), including the reference's palette
// tests and the three documented rules the Python original breaks.

const fc = require('fast-check')
const { ROLES, StaticPaletteResolver, resolvePalette, applyPalette } = require('..')

const tool = (name, extra = {}) => ({ name, description: `the ${name} tool`, ...extra })
const names = (tools) => tools.map((t) => t.name)

function spyLogger() {
  const messages = []
  return { messages, warn: jest.fn((m) => messages.push(m)) }
}

const TOOLS = [
  'search',
  'github_create_issue',
  'apply_pricing_change',
  'mcp__jira__search',
  'github_list_issues',
  'mcp__jira__create',
  'mcp__slack__post',
  'recall_tool_result',
].map((n) => tool(n))

describe('ROLES', () => {
  test('names the canonical roles', () => {
    expect(ROLES).toEqual({ ACTION: 'action', DEFAULT: 'default' })
    expect(Object.isFrozen(ROLES)).toBe(true)
  })
})

describe('StaticPaletteResolver', () => {
  test('returns a subset of the same objects, in input order', () => {
    const logger = spyLogger()
    const r = new StaticPaletteResolver({ roleTools: { action: ['mcp__jira__search', 'search'] }, logger })
    const out = r.resolve({}, ROLES.ACTION, TOOLS)
    expect(names(out)).toEqual(['search', 'mcp__jira__search'])
    expect(out[0]).toBe(TOOLS[0])
    expect(out[1]).toBe(TOOLS[3])
    expect(out).not.toBe(TOOLS)
    expect(logger.warn).not.toHaveBeenCalled()
  })

  test('entries ending in * match a prefix', () => {
    const logger = spyLogger()
    const r = new StaticPaletteResolver({ roleTools: { action: ['github_*', 'mcp__jira__*'], all: ['*'] }, logger })
    expect(names(r.resolve(null, 'action', TOOLS))).toEqual([
      'github_create_issue',
      'mcp__jira__search',
      'github_list_issues',
      'mcp__jira__create',
    ])
    expect(r.resolve(null, 'all', TOOLS)).toEqual(TOOLS)
    // only the prefix: `github_*` does not match `github`, `mcp__jira*` is not `mcp__jira__*`
    expect(r.resolve(null, 'action', [tool('github'), tool('mcp__jiraX')])).toEqual([])
    expect(logger.messages).toEqual([expect.stringContaining('matches none of the 2 tools')])
  })

  test('no roleTools is a TypeError, not a resolver that allows every tool', () => {
    for (const roleTools of [undefined, null]) {
      expect(() => new StaticPaletteResolver({ roleTools })).toThrow(
        new TypeError(
          `new StaticPaletteResolver(options): roleTools is ${roleTools}; give a map of role names to lists of tool names, e.g. roleTools: { action: ['search'] } (['*'] for every tool)`,
        ),
      )
    }
    expect(() => new StaticPaletteResolver({})).toThrow(/^new StaticPaletteResolver\(options\): roleTools is undefined/)
    // the free function keeps the seed's explicit "no policy"
    return expect(resolvePalette({}, 'action', TOOLS, { roleTools: undefined })).resolves.toBeNull()
  })

  test("a role without an entry (default unknownRole 'deny'): [], one warning per resolver and role naming the roles and how to open them", () => {
    const logger = spyLogger()
    const r = new StaticPaletteResolver({ roleTools: { action: ['search'], reviewer: ['search'] }, logger })
    expect(r.unknownRole).toBe('deny')
    for (let i = 0; i < 3; i++) {
      expect(r.resolve({}, 'reviewr', TOOLS)).toEqual([])
      expect(r.resolve({}, ROLES.DEFAULT, TOOLS)).toEqual([])
    }
    expect(logger.messages).toEqual([
      "[tool_palette] role 'reviewr' has no entry in roleTools (did you mean 'reviewer'?); roles: [action, reviewer]; " +
        'binding only the always-on and forced tools (every other call is refused). ' +
        "Add roleTools['reviewr'] to give it tools, or set unknownRole: 'allow' to give every role without an entry all tools",
      expect.stringMatching(/^\[tool_palette\] role 'default' has no entry in roleTools; roles: \[action, reviewer\]; binding only the always-on/),
    ])
    // inherited keys are not roles
    expect(r.resolve({}, 'constructor', TOOLS)).toEqual([])
    expect(r.resolve({}, '__proto__', TOOLS)).toEqual([])
    expect(r.resolve({}, undefined, TOOLS)).toEqual([]) // not a role name: denied too
    expect(logger.messages).toHaveLength(5)
    expect(logger.messages[4]).toContain("role 'undefined' has no entry")
    expect(r.hasRole('action')).toBe(true)
    expect(r.hasRole('constructor')).toBe(false)
    expect(r.allows('reviewr', 'search')).toBe(false)
    expect(r.allows('action', 'search')).toBe(true)
    // another resolver warns again
    new StaticPaletteResolver({ roleTools: { action: ['search'] }, logger }).resolve({}, 'reviewr', TOOLS)
    expect(logger.messages).toHaveLength(6)
  })

  test("unknownRole 'allow' opens every tool to roles without an entry: null, no warning", () => {
    const logger = spyLogger()
    const r = new StaticPaletteResolver({ roleTools: { action: ['search'] }, unknownRole: 'allow', logger })
    expect(r.unknownRole).toBe('allow')
    expect(r.resolve({}, ROLES.DEFAULT, TOOLS)).toBeNull()
    expect(r.resolve({}, 'typo', TOOLS)).toBeNull()
    expect(r.allows('typo', 'delete_repo')).toBeNull()
    // roles with an entry keep their allowlist
    expect(names(r.resolve({}, 'action', TOOLS))).toEqual(['search'])
    expect(r.allows('action', 'delete_repo')).toBe(false)
    expect(logger.warn).not.toHaveBeenCalled()
    // an empty roleTools object is a configuration too
    expect(new StaticPaletteResolver({ roleTools: {}, unknownRole: 'allow', logger }).resolve({}, 'action', TOOLS)).toBeNull()
    expect(logger.warn).not.toHaveBeenCalled()
  })

  test.each([
    [{ roleTools: { action: ['a'] }, unknownRole: 'block' }, /^new StaticPaletteResolver\(options\): unknownRole must be one of 'allow', 'deny', got the string "block"/],
    [
      { roleTools: { action: ['a'] }, unknownRole: 'warn' },
      /^new StaticPaletteResolver\(options\): unknownRole 'warn' was removed: a role without an entry in roleTools now gets no tools \('deny', the default, warned once\); pass unknownRole: 'allow' to give it every tool$/,
    ],
    [{ roleTools: { action: ['a'] }, unknownrole: 'deny' }, /unknown option "unknownrole"; did you mean "unknownRole"\?/],
    [{ unknownRole: 'deny' }, /unknownRole applies to roles missing from roleTools; pass roleTools too/],
  ])('unknownRole is checked: %j', (options, message) => {
    expect(() => new StaticPaletteResolver(options)).toThrow(TypeError)
    expect(() => new StaticPaletteResolver(options)).toThrow(message)
  })

  test('an empty allowlist is [] plus one warning per resolver and role', () => {
    const logger = spyLogger()
    const r = new StaticPaletteResolver({ roleTools: { action: [], default: new Set() }, logger })
    for (let i = 0; i < 3; i++) {
      expect(r.resolve({}, 'action', TOOLS)).toEqual([])
      expect(r.resolve({}, 'default', TOOLS)).toEqual([])
    }
    expect(r.allows('action', 'search')).toBe(false)
    expect(logger.messages).toEqual([
      "[tool_palette] the allowlist for role 'action' is empty; binding only the always-on and forced tools (every other call is refused). List the tools it may call, or ['*'] for every tool",
      expect.stringMatching(/role 'default' is empty/),
    ])
    // another resolver warns again
    const other = new StaticPaletteResolver({ roleTools: { action: [] }, logger })
    other.resolve({}, 'action', TOOLS)
    expect(logger.warn).toHaveBeenCalledTimes(3)
  })

  test('an allowlist matching no tool (a typo) is [] plus one warning naming the allowlist and the closest tools', () => {
    const logger = spyLogger()
    const r = new StaticPaletteResolver({ roleTools: { action: ['zeta', 'serach', 'githb_*', 'serach'] }, logger })
    expect(r.resolve({}, 'action', TOOLS)).toEqual([])
    expect(r.resolve({}, 'action', TOOLS.slice(1))).toEqual([])
    expect(logger.messages).toEqual([
      "[tool_palette] the allowlist for role 'action' matches none of the 8 tools ('githb_*': did you mean 'github_*'?; 'serach': did you mean 'search'?); " +
        "binding only the always-on and forced tools (every other call is refused). Fix the allowlist, or list '*' to give the role every tool. " +
        'Allowlist: [githb_*, serach, zeta]',
    ])
    // once it matches, it filters
    expect(names(r.resolve({}, 'action', [tool('x'), tool('zeta')]))).toEqual(['zeta'])
    // no hint when nothing is close
    const far = new StaticPaletteResolver({ roleTools: { action: ['qqqqqq'] }, logger })
    far.resolve({}, 'action', TOOLS)
    expect(logger.messages[1]).toMatch(/matches none of the 8 tools; binding only/)
  })

  test('an empty tool list is null without a warning', () => {
    const logger = spyLogger()
    const r = new StaticPaletteResolver({ roleTools: { action: ['search'] }, logger })
    expect(r.resolve({}, 'action', [])).toBeNull()
    expect(logger.warn).not.toHaveBeenCalled()
  })

  test('tools without a string name are never matched', () => {
    const weird = [null, undefined, 42, 'search', { name: 7 }, {}, tool('search'), { name: 'a\0b' }]
    const r = new StaticPaletteResolver({ roleTools: { action: ['*'] } })
    const out = r.resolve({}, 'action', weird)
    expect(out).toEqual([weird[6], weird[7]])
    expect(out[0]).toBe(weird[6])
  })

  test('accepts any iterable of names: arrays, Sets, generators', () => {
    function* gen() {
      yield 'search'
      yield 'github_*'
    }
    const r = new StaticPaletteResolver({ roleTools: { a: new Set(['search']), b: gen() } })
    expect(names(r.resolve({}, 'a', TOOLS))).toEqual(['search'])
    expect(names(r.resolve({}, 'b', TOOLS))).toEqual(['search', 'github_create_issue', 'github_list_issues'])
    expect(r.roles).toEqual(['a', 'b'])
  })

  test('allows() answers for one name', () => {
    const r = new StaticPaletteResolver({ roleTools: { action: ['github_*', 'search'], empty: [] } })
    expect(r.allows('action', 'github_x')).toBe(true)
    expect(r.allows('action', 'search')).toBe(true)
    expect(r.allows('action', 'delete_repo')).toBe(false)
    expect(r.allows('empty', 'search')).toBe(false)
    expect(r.allows('nobody', 'search')).toBe(false)
    expect(r.allows(undefined, 'search')).toBe(false)
    expect(r.allows('action', 7)).toBeNull()
    expect(new StaticPaletteResolver({ roleTools: {}, unknownRole: 'allow' }).allows('action', 'search')).toBeNull()
  })

  test.each([
    ['no options', undefined, /expected options/],
    ['null options', null, /expected options/],
    ['roleTools a string', { roleTools: 'search' }, /roleTools must be a plain object/],
    ['roleTools an array', { roleTools: [['search']] }, /roleTools must be a plain object/],
    ['roleTools a Map', { roleTools: new Map([['action', ['x']]]) }, /got a Map/],
    ['a bare string allowlist', { roleTools: { action: 'search' } }, /is the string "search"; give a list/],
    ['a number allowlist', { roleTools: { action: 3 } }, /must be an iterable/],
    ['a null allowlist', { roleTools: { action: null } }, /must be an iterable/],
    ['a non-string entry', { roleTools: { action: ['ok', 5] } }, /holds number 5; tool names are strings/],
    ['an empty entry', { roleTools: { action: [''] } }, /empty tool name/],
    ['an inner wildcard', { roleTools: { action: ['github_*_read'] } }, /only a trailing '\*'/],
    ['a double wildcard', { roleTools: { action: ['**'] } }, /only a trailing '\*'/],
    ['a logger without warn', { roleTools: {}, logger: {} }, /warn\(message\) method/],
    ['a string logger', { roleTools: {}, logger: 'console' }, /logger must be an object/],
  ])('malformed options (%s) throw a TypeError from the constructor', (_, options, message) => {
    expect(() => new StaticPaletteResolver(options)).toThrow(TypeError)
    expect(() => new StaticPaletteResolver(options)).toThrow(message)
  })

  test('never throws, whatever the state, role or tool list', () => {
    const logger = spyLogger()
    const r = new StaticPaletteResolver({ roleTools: { action: ['search', 'github_*'], empty: [] }, logger })
    const hostile = [
      tool('search'),
      Object.defineProperty({}, 'name', {
        get() {
          throw new Error('boom')
        },
      }),
    ]
    // a list that cannot be read allows nothing
    expect(r.resolve({}, 'action', hostile)).toEqual([])
    const proxy = new Proxy([tool('search')], {
      get(target, key) {
        if (key === '0') throw new Error('proxy')
        return Reflect.get(target, key)
      },
    })
    expect(r.resolve({}, 'action', proxy)).toEqual([])
    const arb = fc.anything({ withBigInt: true, withMap: true, withSet: true, withNullPrototype: true })
    fc.assert(
      fc.property(arb, fc.oneof(fc.string(), arb, fc.constantFrom('action', 'empty')), fc.oneof(arb, fc.array(arb)), (state, role, tools) => {
        const out = r.resolve(state, role, tools)
        if (out !== null) {
          expect(Array.isArray(tools)).toBe(true)
          for (const t of out) expect(tools).toContain(t)
        }
      }),
      { numRuns: 300 },
    )
  })

  test('a changed tool list is seen: pushed, replaced and renamed tools', () => {
    const r = new StaticPaletteResolver({ roleTools: { action: ['github_*'] } })
    const list = [tool('github_a'), tool('search')]
    expect(names(r.resolve({}, 'action', list))).toEqual(['github_a'])
    list.push(tool('github_b'))
    expect(names(r.resolve({}, 'action', list))).toEqual(['github_a', 'github_b'])
    const replacement = tool('github_c')
    list[1] = replacement
    const out = r.resolve({}, 'action', list)
    expect(names(out)).toEqual(['github_a', 'github_c', 'github_b'])
    expect(out[1]).toBe(replacement)
    list[0].name = 'renamed'
    expect(names(r.resolve({}, 'action', list))).toEqual(['github_c', 'github_b'])
    list[1].name = 'search'
    list[2].name = 'search'
    expect(r.resolve({}, 'action', list)).toEqual([])
    list.length = 0
    expect(r.resolve({}, 'action', list)).toBeNull()
  })

  test('a new array each call (same names, or other objects under them) answers from its own objects', () => {
    const r = new StaticPaletteResolver({ roleTools: { action: ['github_*'] } })
    const base = [tool('github_a'), tool('search'), tool('github_b')]
    for (let i = 0; i < 3; i++) {
      const copy = [...base]
      const out = r.resolve({}, 'action', copy)
      expect(out).toEqual([base[0], base[2]])
      expect(out[1]).toBe(base[2])
    }
    const lookalikes = base.map((t) => tool(t.name))
    const out = r.resolve({}, 'action', lookalikes)
    expect(out[0]).toBe(lookalikes[0])
    expect(out[1]).toBe(lookalikes[2])
    const reordered = [base[2], base[1], base[0]]
    expect(r.resolve({}, 'action', reordered)).toEqual([base[2], base[0]])
  })

  test('verdicts stay exact past the number of names it remembers', () => {
    const r = new StaticPaletteResolver({ roleTools: { action: ['keep_*', 'exact_7'] } })
    const many = Array.from({ length: 10000 }, (_, i) => tool(i % 3 === 0 ? `keep_${i}` : `drop_${i}`))
    many.push(tool('exact_7'))
    for (let i = 0; i < 2; i++) {
      const out = r.resolve({}, 'action', many)
      expect(out).toHaveLength(3335)
      expect(out.every((t) => t.name.startsWith('keep_') || t.name === 'exact_7')).toBe(true)
    }
    expect(r.allows('action', 'keep_0')).toBe(true)
    expect(r.allows('action', 'drop_1')).toBe(false)
    expect(r.allows('action', 'exact_77')).toBe(false)
  })

  test('two resolvers over the same list keep their own answers', () => {
    const a = new StaticPaletteResolver({ roleTools: { action: ['search'] } })
    const b = new StaticPaletteResolver({ roleTools: { action: ['mcp__*'] } })
    for (let i = 0; i < 3; i++) {
      expect(names(a.resolve({}, 'action', TOOLS))).toEqual(['search'])
      expect(names(b.resolve({}, 'action', TOOLS))).toEqual(['mcp__jira__search', 'mcp__jira__create', 'mcp__slack__post'])
    }
  })

  test('a logger that throws does not break resolve', () => {
    const r = new StaticPaletteResolver({
      roleTools: { action: [] },
      logger: {
        warn() {
          throw new Error('logger down')
        },
      },
    })
    expect(r.resolve({}, 'action', TOOLS)).toEqual([])
  })

  test('agrees with a plain-JS reference over random names and allowlists', () => {
    const nameArb = fc.stringMatching(/^[a-c_]{0,4}$/)
    fc.assert(
      fc.property(
        fc.array(nameArb, { maxLength: 12 }),
        fc.array(fc.tuple(fc.stringMatching(/^[a-c_]{1,3}$/), fc.boolean()), { minLength: 1, maxLength: 6 }),
        (toolNames, spec) => {
          const entries = spec.map(([n, star]) => (star ? n + '*' : n))
          const tools = toolNames.map((n) => tool(n))
          const expected = tools.filter((t) =>
            entries.some((e) => (e.endsWith('*') ? t.name.startsWith(e.slice(0, -1)) : t.name === e)),
          )
          const r = new StaticPaletteResolver({ roleTools: { action: entries }, logger: spyLogger() })
          expect(r.resolve({}, 'action', tools)).toEqual(tools.length === 0 ? null : expected)
        },
      ),
      { numRuns: 300 },
    )
  })
})

describe('resolvePalette', () => {
  test('no config means null', async () => {
    await expect(resolvePalette({}, 'action', TOOLS, undefined)).resolves.toBeNull()
    await expect(resolvePalette({}, 'action', TOOLS, {})).resolves.toBeNull()
    await expect(resolvePalette({}, 'action', TOOLS, { roleTools: null })).resolves.toBeNull()
  })

  test('returns the role subset, same objects', async () => {
    const out = await resolvePalette({}, 'action', TOOLS, { roleTools: { action: ['search', 'mcp__slack__*'] } })
    expect(out).toEqual([TOOLS[0], TOOLS[6]])
    expect(out[0]).toBe(TOOLS[0])
  })

  test('compiles once per roleTools object, so warnings are once per object and role', async () => {
    const logger = spyLogger()
    const roleTools = { action: [], default: ['nothing_matches'] }
    for (let i = 0; i < 3; i++) {
      await resolvePalette({}, 'action', TOOLS, { roleTools, logger })
      await resolvePalette({}, 'default', TOOLS, { roleTools, logger })
    }
    expect(logger.warn).toHaveBeenCalledTimes(2)
    await resolvePalette({}, 'action', TOOLS, { roleTools: { action: [] }, logger })
    expect(logger.warn).toHaveBeenCalledTimes(3)
  })

  test('malformed roleTools rejects with a TypeError', async () => {
    await expect(resolvePalette({}, 'action', TOOLS, { roleTools: { action: 'search' } })).rejects.toThrow(TypeError)
    await expect(resolvePalette({}, 'action', TOOLS, { roleTools: 'x' })).rejects.toThrow(TypeError)
    await expect(resolvePalette({}, 'action', TOOLS, 'x')).rejects.toThrow(TypeError)
  })
})

describe('applyPalette', () => {
  const staticResolver = (roleTools, logger) => new StaticPaletteResolver({ roleTools, logger })

  // --- the reference's palette tests -------------------------------------

  test('the resolver is asked once per call, with the role and the tool list', async () => {
    const resolve = jest.fn((state, role, allTools) => allTools.filter((t) => t.name === 'search'))
    const state = { messages: [] }
    for (let i = 0; i < 3; i++) {
      const { tools } = await applyPalette({ state, role: ROLES.ACTION, allTools: TOOLS, resolver: { resolve } })
      expect(names(tools)).toEqual(['search', 'recall_tool_result'])
    }
    expect(resolve).toHaveBeenCalledTimes(3)
    expect(resolve).toHaveBeenCalledWith(state, 'action', TOOLS)
  })

  test('a resolver returning a subset narrows the bound tools', async () => {
    const logger = spyLogger()
    const { tools, toolChoice } = await applyPalette({
      state: {},
      role: 'action',
      allTools: TOOLS,
      resolver: staticResolver({ action: ['github_*'] }),
      alwaysInclude: [],
      logger,
    })
    expect(names(tools)).toEqual(['github_create_issue', 'github_list_issues'])
    expect(toolChoice).toBeUndefined()
    expect(logger.warn).not.toHaveBeenCalled()
  })

  test('a resolver returning null binds all tools', async () => {
    const logger = spyLogger()
    const { tools } = await applyPalette({ state: {}, role: 'action', allTools: TOOLS, resolver: { resolve: () => null }, logger })
    expect(tools).toEqual(TOOLS)
    expect(tools[2]).toBe(TOOLS[2])
    expect(logger.warn).not.toHaveBeenCalled()
  })

  test('resolver: null binds all tools; a missing or undefined resolver is a TypeError, not "no palette"', async () => {
    const { tools, toolChoice } = await applyPalette({ state: {}, role: 'action', allTools: TOOLS, resolver: null })
    expect(tools).toEqual(TOOLS)
    expect(toolChoice).toBeUndefined()
    const message = new TypeError(
      'applyPalette(input): resolver is undefined; pass a ToolPaletteResolver (e.g. new StaticPaletteResolver({ roleTools })), or resolver: null for no palette (every tool)',
    )
    await expect(applyPalette({ state: {}, role: 'action', allTools: TOOLS })).rejects.toThrow(message)
    await expect(applyPalette({ state: {}, role: 'action', allTools: TOOLS, resolver: undefined })).rejects.toThrow(message)
    await expect(applyPalette({ state: {}, role: 'action', allTools: TOOLS, resolver: {} })).rejects.toThrow(
      /^applyPalette\(input\): resolver must have a resolve\(state, role, allTools\) method, or be null for no palette \(got object\)$/,
    )
  })

  test.each([
    ['throws', () => {
      throw new Error('resolver exploded')
    }],
    ['rejects', async () => {
      throw new Error('resolver exploded')
    }],
  ])('a resolver that %s fails closed: only the always-on and forced tools, warned once per role', async (_, resolve) => {
    const logger = spyLogger()
    const resolver = { resolve }
    for (let i = 0; i < 2; i++) {
      const { tools } = await applyPalette({ state: {}, role: 'action', allTools: TOOLS, resolver, logger })
      expect(names(tools)).toEqual(['recall_tool_result'])
    }
    const forced = await applyPalette({ state: {}, role: 'action', allTools: TOOLS, resolver, forcedToolChoice: 'search', logger })
    expect(names(forced.tools)).toEqual(['search', 'recall_tool_result'])
    expect(logger.messages).toEqual([
      "[tool_palette] the palette resolver for role 'action' failed (resolver exploded); binding only the always-on and forced tools (every other call is refused). Fix the resolver, or catch the error in it and return null to bind every tool",
      expect.stringContaining("forced tool choice 'search' is outside the palette"),
    ])
  })

  test('a forced tool excluded by the palette is appended back and set as toolChoice', async () => {
    const logger = spyLogger()
    const { tools, toolChoice } = await applyPalette({
      state: {},
      role: 'action',
      allTools: TOOLS,
      resolver: staticResolver({ action: ['search'] }),
      forcedToolChoice: 'apply_pricing_change',
      logger,
    })
    expect(names(tools)).toEqual(['search', 'apply_pricing_change', 'recall_tool_result'])
    expect(tools[1]).toBe(TOOLS[2]) // the instance from the unfiltered list
    expect(toolChoice).toBe('apply_pricing_change')
    expect(logger.warn).toHaveBeenCalledTimes(1)
    expect(logger.messages[0]).toMatch(/forced tool choice 'apply_pricing_change' is outside the palette for role 'action'/)
  })

  test('a forced tool already in the palette is not duplicated (and not warned about)', async () => {
    const logger = spyLogger()
    const { tools, toolChoice } = await applyPalette({
      state: {},
      role: 'action',
      allTools: TOOLS,
      resolver: staticResolver({ action: ['search', 'apply_pricing_change'] }),
      forcedToolChoice: 'search',
      logger,
    })
    expect(names(tools)).toEqual(['search', 'apply_pricing_change', 'recall_tool_result'])
    expect(toolChoice).toBe('search')
    expect(logger.warn).not.toHaveBeenCalled()
  })

  test('no forced tool leaves toolChoice unset', async () => {
    for (const forcedToolChoice of [undefined, null, '']) {
      const out = await applyPalette({ state: {}, role: 'action', allTools: TOOLS, resolver: null, forcedToolChoice })
      expect(out.toolChoice).toBeUndefined()
      expect(Object.keys(out).sort()).toEqual(['toolChoice', 'tools'])
    }
  })

  // --- the three documented rules the original breaks ---------------------

  test('a resolver returning [] means no tools: only the always-on and forced tools, silently (the seed abstained to every tool)', async () => {
    const logger = spyLogger()
    for (let i = 0; i < 2; i++) {
      const { tools } = await applyPalette({ state: {}, role: 'action', allTools: TOOLS, resolver: { resolve: () => [] }, logger })
      expect(names(tools)).toEqual(['recall_tool_result'])
    }
    const none = await applyPalette({ state: {}, role: 'action', allTools: TOOLS, resolver: { resolve: () => [] }, alwaysInclude: [], logger })
    expect(none.tools).toEqual([])
    expect(logger.warn).not.toHaveBeenCalled()
  })

  test('docs win: the forced-tool warning fires once per (forced tool, role), not every iteration', async () => {
    const logger = spyLogger()
    const resolver = staticResolver({ action: ['search'], default: ['search'] })
    const run = (role, forcedToolChoice) =>
      applyPalette({ state: {}, role, allTools: TOOLS, resolver, forcedToolChoice, logger })
    for (let i = 0; i < 4; i++) {
      const { tools, toolChoice } = await run('action', 'apply_pricing_change')
      expect(names(tools)).toContain('apply_pricing_change')
      expect(toolChoice).toBe('apply_pricing_change')
    }
    expect(logger.warn).toHaveBeenCalledTimes(1)
    await run('default', 'apply_pricing_change')
    await run('action', 'mcp__slack__post')
    await run('default', 'apply_pricing_change')
    expect(logger.warn).toHaveBeenCalledTimes(3)
    // a new resolver is a new policy: it warns again
    await applyPalette({ state: {}, role: 'action', allTools: TOOLS, resolver: staticResolver({ action: ['search'] }), forcedToolChoice: 'apply_pricing_change', logger })
    expect(logger.warn).toHaveBeenCalledTimes(4)
  })

  test('docs win: alwaysInclude is applied after the palette, so recall_tool_result survives narrowing', async () => {
    const { tools } = await applyPalette({
      state: {},
      role: 'action',
      allTools: TOOLS,
      resolver: staticResolver({ action: ['github_*'] }),
    })
    expect(names(tools)).toEqual(['github_create_issue', 'github_list_issues', 'recall_tool_result'])
    const custom = await applyPalette({
      state: {},
      role: 'action',
      allTools: TOOLS,
      resolver: staticResolver({ action: ['github_*'] }),
      alwaysInclude: ['mcp__slack__post', 'search', 'not_a_tool'],
    })
    // appended after the palette, in allTools order; recall is not in a custom list
    expect(names(custom.tools)).toEqual(['github_create_issue', 'github_list_issues', 'search', 'mcp__slack__post'])
    const none = await applyPalette({ state: {}, role: 'action', allTools: TOOLS, resolver: staticResolver({ action: ['github_*'] }), alwaysInclude: [] })
    expect(names(none.tools)).toEqual(['github_create_issue', 'github_list_issues'])
  })

  // --- the rest of the loop rules ----------------------------------------

  test('intent narrowing (resolvedTools) comes first; the palette only narrows it further', async () => {
    const resolvedTools = [TOOLS[1], TOOLS[0], TOOLS[4]]
    const resolve = jest.fn((s, r, allTools) => allTools.filter((t) => t.name.startsWith('github_') || t.name === 'mcp__slack__post'))
    const { tools } = await applyPalette({ state: {}, role: 'action', allTools: TOOLS, resolvedTools, resolver: { resolve } })
    expect(resolve.mock.calls[0][2]).toBe(resolvedTools)
    // palette ∩ resolved_tools, in the resolved order, then recall from allTools
    expect(names(tools)).toEqual(['github_create_issue', 'github_list_issues', 'recall_tool_result'])
    // an empty intent list is not a narrowing
    const all = await applyPalette({ state: {}, role: 'action', allTools: TOOLS, resolvedTools: [], resolver: null })
    expect(all.tools).toEqual(TOOLS)
  })

  test('a forced tool outside the intent-narrowed list is still bound from allTools', async () => {
    const { tools, toolChoice } = await applyPalette({
      state: {},
      role: 'action',
      allTools: TOOLS,
      resolvedTools: [TOOLS[0]],
      resolver: null,
      forcedToolChoice: 'mcp__jira__create',
      alwaysInclude: [],
      logger: spyLogger(),
    })
    expect(names(tools)).toEqual(['search', 'mcp__jira__create'])
    expect(tools[1]).toBe(TOOLS[5])
    expect(toolChoice).toBe('mcp__jira__create')
  })

  test('a forced tool that is in no list is not forced (warned once)', async () => {
    const logger = spyLogger()
    for (let i = 0; i < 2; i++) {
      const { tools, toolChoice } = await applyPalette({ state: {}, role: 'action', allTools: TOOLS, resolver: null, forcedToolChoice: 'ghost', logger })
      expect(tools).toEqual(TOOLS)
      expect(toolChoice).toBeUndefined()
    }
    expect(logger.warn).toHaveBeenCalledTimes(1)
    expect(logger.messages[0]).toMatch(/'ghost' names no tool/)
  })

  test('the result keeps input order and holds no duplicates', async () => {
    const a = tool('a')
    const b = tool('b')
    const twinA = tool('a')
    const allTools = [b, a, b, twinA, tool('recall_tool_result')]
    const { tools } = await applyPalette({
      state: {},
      role: 'action',
      allTools,
      // a sloppy resolver: wrong order, duplicates, and a tool it made up
      resolver: { resolve: () => [a, b, a, tool('made_up')] },
      forcedToolChoice: 'a',
    })
    expect(tools).toEqual([b, a, allTools[4]])
    expect(tools[0]).toBe(b)
    expect(tools[1]).toBe(a)
  })

  test('a resolver returning only tools it made up (copies) fails closed, with a warning', async () => {
    const logger = spyLogger()
    const { tools } = await applyPalette({ state: {}, role: 'action', allTools: TOOLS, resolver: { resolve: () => [tool('search')] }, logger })
    expect(names(tools)).toEqual(['recall_tool_result'])
    expect(logger.messages).toEqual([
      "[tool_palette] the palette resolver for role 'action' returned 1 tools, none of them in the tool list; binding only the always-on and forced tools (every other call is refused). Return the tool objects of allTools themselves, not copies",
    ])
  })

  test.each([
    ['the string "search"', () => 'search'],
    ['object', () => ({ tools: [] })],
    ['undefined (a missing return?)', () => {}],
    ['undefined (a missing return?)', async () => undefined],
  ])('a resolver returning %s fails closed, with a warning naming it', async (what, resolve) => {
    const logger = spyLogger()
    const { tools } = await applyPalette({ state: {}, role: 'action', allTools: TOOLS, resolver: { resolve }, logger })
    expect(names(tools)).toEqual(['recall_tool_result'])
    const returned = what.startsWith('undefined') ? `returned ${what}` : `returned ${what}, not a list of tools`
    expect(logger.messages).toEqual([
      `[tool_palette] the palette resolver for role 'action' ${returned}; binding only the always-on and forced tools (every other call is refused). Return tools of allTools, [] for none, or null for every tool`,
    ])
  })

  test('the default logger is console', async () => {
    const spy = jest.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      await applyPalette({ state: {}, role: 'action', allTools: TOOLS, resolver: { resolve: () => 'x' } })
      expect(spy).toHaveBeenCalledTimes(1)
    } finally {
      spy.mockRestore()
    }
  })

  test("a StaticPaletteResolver's deny binds only the always-on and forced tools, as any resolver's [] does", async () => {
    const logger = spyLogger()
    const resolver = new StaticPaletteResolver({ roleTools: { action: ['search'] }, unknownRole: 'deny', logger })
    const denied = await applyPalette({ state: {}, role: 'typo', allTools: TOOLS, resolver, logger })
    expect(names(denied.tools)).toEqual(['recall_tool_result'])
    const forced = await applyPalette({ state: {}, role: 'typo', allTools: TOOLS, resolver, forcedToolChoice: 'apply_pricing_change', logger })
    expect(names(forced.tools)).toEqual(['apply_pricing_change', 'recall_tool_result'])
    expect(forced.toolChoice).toBe('apply_pricing_change')
    const none = await applyPalette({ state: {}, role: 'typo', allTools: TOOLS, resolver, alwaysInclude: [], logger })
    expect(none.tools).toEqual([])
    // the same through resolvePalette, and through a resolver that passes the deny on
    const roleTools = { action: ['search'] }
    expect(await resolvePalette({}, 'typo', TOOLS, { roleTools, unknownRole: 'deny', logger })).toEqual([])
    const wrapper = { resolve: (state, role, tools) => resolver.resolve(state, role, tools) }
    expect(names((await applyPalette({ state: {}, role: 'typo', allTools: TOOLS, resolver: wrapper, logger })).tools)).toEqual(['recall_tool_result'])
    const custom = await applyPalette({ state: {}, role: 'typo', allTools: TOOLS, resolver: { resolve: () => [] }, logger })
    expect(names(custom.tools)).toEqual(['recall_tool_result'])
  })

  test("resolvePalette fails closed too (default unknownRole 'deny'), and takes 'allow'", async () => {
    const logger = spyLogger()
    const roleTools = { action: ['search'] }
    expect(await resolvePalette({}, 'typo', TOOLS, { roleTools, logger })).toEqual([])
    expect(await resolvePalette({}, 'typo', TOOLS, { roleTools, logger })).toEqual([])
    expect(logger.messages).toEqual([expect.stringContaining("role 'typo' has no entry in roleTools")])
    expect(await resolvePalette({}, 'other', TOOLS, { roleTools, unknownRole: 'allow', logger })).toBeNull()
    expect(logger.messages).toHaveLength(1)
    expect(await resolvePalette({}, 'action', TOOLS, { roleTools: { action: ['serach'] }, logger })).toEqual([])
    expect(logger.messages[1]).toContain("'serach': did you mean 'search'?")
    await expect(resolvePalette({}, 'typo', TOOLS, { roleTools, unknownRole: 'no' })).rejects.toThrow(/unknownRole must be one of/)
    await expect(resolvePalette({}, 'typo', TOOLS, { roles: roleTools })).rejects.toThrow(/unknown option "roles"; did you mean "roleTools"\?/)
  })

  test('programmer errors reject with a TypeError', async () => {
    await expect(applyPalette(null)).rejects.toThrow(TypeError)
    await expect(applyPalette({ state: {}, role: 'action', allTools: TOOLS, resolver: null, alwaysInclude: 'recall_tool_result' })).rejects.toThrow(/alwaysInclude must be an array/)
    // tool objects instead of names: said so, with the fix
    await expect(applyPalette({ state: {}, role: 'action', allTools: TOOLS, resolver: null, alwaysInclude: ['search', TOOLS[7]] })).rejects.toThrow(
      new TypeError('applyPalette(input): alwaysInclude must be an array of tool names, got a tool object at [1]; pass its name: alwaysInclude: ["recall_tool_result"]'),
    )
    await expect(applyPalette({ state: {}, role: 'action', allTools: TOOLS, resolver: null, alwaysInclude: [5] })).rejects.toThrow(/got number 5 at \[0\]/)
    await expect(applyPalette({ state: {}, role: 'action', allTools: TOOLS, resolver: null, logger: { log() {} } })).rejects.toThrow(
      /^applyPalette\(input\): logger must be an object with a warn\(message\) method \(got object\)$/,
    )
  })

  test('property: the result is a duplicate-free selection of the given tools, palette first in input order', async () => {
    const pool = ['a', 'b', 'c', 'd', 'recall_tool_result'].map((n) => tool(n))
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...pool), { maxLength: 8 }),
        fc.option(fc.array(fc.constantFrom(...pool), { maxLength: 4 })),
        fc.option(fc.array(fc.constantFrom('a', 'b', 'c*', 'd', 'recall_*'), { maxLength: 3 })),
        fc.option(fc.constantFrom('a', 'b', 'c', 'd', 'zz')),
        async (allTools, resolvedTools, allow, forced) => {
          const resolver = allow === null ? null : staticResolver({ action: allow }, spyLogger())
          const { tools, toolChoice } = await applyPalette({ state: {}, role: 'action', allTools, resolvedTools, resolver, forcedToolChoice: forced, logger: spyLogger() })
          expect(new Set(tools).size).toBe(tools.length)
          expect(new Set(names(tools)).size).toBe(tools.length)
          for (const t of tools) expect(allTools.includes(t) || (resolvedTools ?? []).includes(t)).toBe(true)
          if (toolChoice !== undefined) {
            expect(toolChoice).toBe(forced)
            expect(names(tools)).toContain(forced)
          }
          if (forced !== null && [...allTools, ...(resolvedTools ?? [])].some((t) => t.name === forced)) {
            expect(toolChoice).toBe(forced)
          }
          if (allTools.some((t) => t.name === 'recall_tool_result')) expect(names(tools)).toContain('recall_tool_result')
          // what was not appended (forced, always-on) is in the order of the list the palette saw
          const start = resolvedTools !== null && resolvedTools.length > 0 ? resolvedTools : allTools
          const kept = tools.filter((t) => t.name !== forced && t.name !== 'recall_tool_result')
          let at = 0
          for (const t of kept) {
            at = start.indexOf(t, at)
            expect(at).toBeGreaterThanOrEqual(0)
            at++
          }
        },
      ),
      { numRuns: 300 },
    )
  })
})
