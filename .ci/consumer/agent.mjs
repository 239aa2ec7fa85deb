// The same package through ESM `import`: named exports of both entry points.
import assert from 'node:assert/strict'
import { Ledger, memIdFor, resolvePalette } from '@symfonic/core'
import { toolMemoryMiddleware, toolPaletteMiddleware, compactToolMessages, DEFAULTS } from '@symfonic/core/langchain'

const ledger = new Ledger()
const handle = await ledger.record({ toolCallId: 'c1', toolName: 't', content: JSON.stringify({ a: [1, 2, 3] }) })
assert.equal(handle.memId, memIdFor('c1', JSON.stringify({ a: [1, 2, 3] })))
assert.equal(await ledger.fetch(handle.memId, { jsonPath: 'a[-1]' }), '3')
assert.equal(typeof toolMemoryMiddleware, 'function')
assert.equal(typeof toolPaletteMiddleware, 'function')
assert.equal(typeof compactToolMessages, 'function')
assert.equal(DEFAULTS.prefix.compactAfter, 'seen')
assert.deepEqual((await resolvePalette({}, 'action', [{ name: 'a' }, { name: 'b' }], { roleTools: { action: ['b'] } })).map((t) => t.name), ['b'])
console.log('consumer (import): both entry points: ok')
