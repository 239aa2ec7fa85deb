'use strict'
// core/ is the framework-neutral policy every adapter shares: it imports no
// framework, its modules import no circle (nor do langchain/'s), and it
// decides on plain data what the LangChain mapping decides on BaseMessages.

const fs = require('node:fs')
const path = require('node:path')
const { AIMessage, HumanMessage, ToolMessage, SystemMessage } = require('@langchain/core/messages')
const core = require('../core/index.js')
const { plainMessage, planFor } = require('../langchain/conversation.js')

const root = path.join(__dirname, '..')
const jsFiles = (dir) => fs.readdirSync(path.join(root, dir)).filter((f) => f.endsWith('.js')).map((f) => `${dir}/${f}`)
// Every module a file names: require('x'), import ... from 'x', import('x').
const specifiers = (file) => [...fs.readFileSync(path.join(root, file), 'utf8').matchAll(/(?:require|import)\s*\(\s*['"]([^'"]+)['"]\s*\)|from\s+['"]([^'"]+)['"]/g)].map((m) => m[1] ?? m[2])

test('core/ imports no framework: no @langchain/*, langchain, ai or @openai/*', () => {
  const files = jsFiles('core')
  expect(files.length).toBeGreaterThan(5)
  const framework = /^(@langchain\/|langchain(\/|$)|ai(\/|$)|@ai-sdk\/|@openai\/)/
  const found = files.flatMap((f) => specifiers(f).filter((s) => framework.test(s)).map((s) => `${f}: ${s}`))
  expect(found).toEqual([])
  // Nor does it reach into the adapters.
  expect(files.flatMap((f) => specifiers(f).filter((s) => s.includes('langchain/')).map((s) => `${f}: ${s}`))).toEqual([])
})

test('no file of core/ is over 300 lines', () => {
  const long = jsFiles('core').filter((f) => fs.readFileSync(path.join(root, f), 'utf8').split('\n').length > 300)
  expect(long).toEqual([])
})

test('the modules of core/, langchain/ and lib/ import no circle', () => {
  const files = [...jsFiles('core'), ...jsFiles('langchain'), ...jsFiles('lib'), 'index.js']
  const graph = new Map(
    files.map((f) => [
      f,
      specifiers(f)
        .filter((s) => s.startsWith('.'))
        .map((s) => path.posix.normalize(path.posix.join(path.posix.dirname(f), s)))
        .map((s) => (s.endsWith('.js') ? s : `${s}.js`))
        .filter((s) => files.includes(s)),
    ]),
  )
  const cycles = []
  const state = new Map() // file -> 'open' | 'done'
  const visit = (f, stack) => {
    if (state.get(f) === 'done') return
    if (state.get(f) === 'open') {
      cycles.push([...stack.slice(stack.indexOf(f)), f].join(' -> '))
      return
    }
    state.set(f, 'open')
    for (const g of graph.get(f)) visit(g, [...stack, f])
    state.set(f, 'done')
  }
  for (const f of files) visit(f, [])
  expect(cycles).toEqual([])
  // The check sees the edges it must: the adapter reaches the core.
  expect(graph.get('langchain/conversation.js')).toContain('core/index.js')
})

describe('plan on plain data', () => {
  const policy = core.resolveOptions({ cacheModel: 'breakpoint' })
  const big = 'x'.repeat(90000) // over evictChars
  const mid = Array.from({ length: 400 }, (_, i) => `row_${i} value ${i * 7}`).join('\n') // a result the model has read

  const lc = [
    new SystemMessage('You are a helpful agent.'),
    new HumanMessage('Look at the two files.'),
    new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'read_file', args: { path: 'a.txt' } }] }),
    new ToolMessage({ content: mid, tool_call_id: 'c1', name: 'read_file' }),
    new AIMessage({ content: 'Now the second one.', tool_calls: [{ id: 'c2', name: 'read_file', args: { path: 'b.txt' } }] }),
    new ToolMessage({ content: big, tool_call_id: 'c2', name: 'read_file' }),
  ]

  test('an adapter that maps its messages by the contract gets the decisions the LangChain mapping gets', () => {
    const calls = (c) => [{ id: c, name: 'read_file', args: { path: c === 'c1' ? 'a.txt' : 'b.txt' } }]
    const plain = [
      { role: 'system', text: 'You are a helpful agent.', markable: true },
      { role: 'user', text: 'Look at the two files.', markable: true },
      { role: 'assistant', text: '', markable: false, calls: calls('c1') },
      { role: 'tool', text: mid, markable: true, callId: 'c1', name: 'read_file', chars: core.codePoints(mid), textOnly: true, ours: false },
      { role: 'assistant', text: 'Now the second one.', markable: true, calls: calls('c2') },
      { role: 'tool', text: big, markable: true, callId: 'c2', name: 'read_file', chars: big.length, textOnly: true, ours: false },
    ].map((m) => ({ ...m, size: m.text.length + (m.calls ? core.callsSize(m.calls) : 0) }))
    const fromLangChain = planFor(lc, policy)
    const fromPlain = core.plan(plain, policy)
    expect(fromPlain).toEqual(fromLangChain)
    // The large result is evicted from first sight; the read one is compacted; a mark precedes the next rewrite.
    expect(fromPlain.decisions.get(5)).toBe('evict')
    expect(fromPlain.decisions.get(3)).toBe('mask')
    expect(fromPlain.marks.length).toBeGreaterThan(0)
    expect(fromPlain.cost.ours).toBeLessThan(fromPlain.cost.none)
  })

  test('the mapping gives the same plain object for the same message, and a new one when its content changes', () => {
    const m = new ToolMessage({ content: 'abc', tool_call_id: 'c9', name: 't' })
    const p = plainMessage(m)
    expect(plainMessage(m)).toBe(p)
    expect(p).toMatchObject({ role: 'tool', size: 3, chars: 3, callId: 'c9', name: 't', textOnly: true, ours: false })
    m.content = 'abcd'
    expect(plainMessage(m)).not.toBe(p)
    expect(plainMessage(m).chars).toBe(4)
  })

  test('a result that is ours is never decided again, and an image result is never compacted', () => {
    const plain = [
      { role: 'user', text: 'go', markable: true, size: 2 },
      { role: 'assistant', text: '', markable: false, size: 60, calls: [{ id: 'a', name: 't', args: {} }, { id: 'b', name: 't', args: {} }] },
      { role: 'tool', text: big, markable: true, size: big.length, callId: 'a', name: 't', chars: big.length, textOnly: true, ours: true },
      { role: 'tool', text: big, markable: true, size: big.length, callId: 'b', name: 't', chars: big.length, textOnly: false, ours: false },
    ]
    expect([...core.plan(plain, policy).decisions]).toEqual([])
  })
})
