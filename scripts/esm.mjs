// Runtime check of the two module systems (CI, after the build): both entry
// points load by package name through `exports` under `require` and `import`,
// the ESM wrappers (index.mjs, langchain/index.mjs, openai-agents/index.mjs) export exactly the names
// Node's CommonJS interop finds in index.js / langchain/index.js / openai-agents/index.js (what ESM
// callers got before the wrappers existed), as the very same objects, and
// their default export is the CommonJS `module.exports`.
import { createRequire } from 'node:module'
import assert from 'node:assert/strict'

const require = createRequire(import.meta.url)

for (const [name, cjsFile] of [
  ['@symfonic/core', '../index.js'],
  ['@symfonic/core/langchain', '../langchain/index.js'],
  ['@symfonic/core/openai-agents', '../openai-agents/index.js'],
  ['@symfonic/core/ai-sdk', '../ai-sdk/index.js'],
]) {
  const required = require(name)
  const imported = await import(name)
  const interop = await import(cjsFile)
  const names = (ns) => Object.keys(ns).filter((k) => k !== 'default' && k !== 'module.exports').sort()
  assert.deepEqual(names(imported), names(interop), `${name}: the ESM wrapper's exports differ from the CommonJS entry's`)
  assert.deepEqual(names(imported), Object.keys(required).sort(), `${name}: import and require differ`)
  for (const key of names(imported)) assert.equal(imported[key], required[key], `${name}: ${key} is another object`)
  assert.equal(imported.default, required, `${name}: the default export is not module.exports`)
  console.log(`${name}: require and import agree on ${names(imported).length} exports`)
}
