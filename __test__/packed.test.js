'use strict'
// The package as `npm run pack:local` (and the release, through
// scripts/manifest.js) packs it: its package.json has no `prepare`, so
// installing the tarball neither warns nor tries to build the addon; the
// binary is in the platform package only.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const zlib = require('node:zlib')
const { execFileSync } = require('node:child_process')

const root = path.join(__dirname, '..')
const repoPkg = require('../package.json')
const dest = fs.mkdtempSync(path.join(os.tmpdir(), 'symfonic-packed-'))
afterAll(() => fs.rmSync(dest, { recursive: true, force: true }))

/** The entries of a .tgz: name -> contents (ustar, as npm writes it). */
function untar(file) {
  const data = zlib.gunzipSync(fs.readFileSync(file))
  const entries = new Map()
  for (let off = 0; off + 512 <= data.length; ) {
    const header = data.subarray(off, off + 512)
    if (header.every((b) => b === 0)) break
    const field = (a, b) => header.subarray(a, b).toString('utf8').replace(/\0.*$/s, '')
    const name = (field(345, 500) ? field(345, 500) + '/' : '') + field(0, 100)
    const size = parseInt(field(124, 136).trim(), 8)
    entries.set(name, data.subarray(off + 512, off + 512 + size))
    off += 512 + Math.ceil(size / 512) * 512
  }
  return entries
}

let main
let platform
beforeAll(() => {
  execFileSync(process.execPath, [path.join(root, 'scripts', 'pack.js'), dest], { cwd: root, encoding: 'utf8' })
  const tgz = fs.readdirSync(dest)
  main = untar(path.join(dest, tgz.find((f) => f === `symfonic-core-${repoPkg.version}.tgz`)))
  platform = untar(path.join(dest, tgz.find((f) => f !== `symfonic-core-${repoPkg.version}.tgz`)))
}, 60000)

test('the packed package.json has no prepare, nor any script npm runs on install', () => {
  const packed = JSON.parse(main.get('package/package.json').toString('utf8'))
  expect(repoPkg.scripts.prepare).toBe('node scripts/prepare.js') // the checkout builds on npm install
  for (const s of ['prepare', 'preinstall', 'install', 'postinstall', 'prepack', 'postpack']) expect(packed.scripts[s]).toBeUndefined()
  // Everything else is the repository's.
  const { prepare, ...scripts } = repoPkg.scripts
  expect(prepare).toBeDefined()
  expect(packed).toEqual({ ...repoPkg, scripts })
})

test('the main package has the entry points and no binary; the platform package has the binary', () => {
  const names = [...main.keys()]
  for (const f of ['package/index.js', 'package/index.mjs', 'package/lib/native.js', 'package/langchain/index.js', 'package/openai-agents/index.js', 'package/openai-agents/index.d.cts', 'package/ai-sdk/index.js', 'package/ai-sdk/index.mjs', 'package/ai-sdk/index.d.cts', 'package/ai-sdk/index.d.mts', 'package/lib/tool-memory.d.ts', 'package/core/index.js', 'package/binding.js', 'package/README.md']) expect(names).toContain(f)
  expect(names.filter((n) => n.endsWith('.node'))).toEqual([])
  expect([...platform.keys()].filter((n) => n.endsWith('.node'))).toHaveLength(1)
})

test("each adapter's types reach no other framework's: the options and events they share are in lib/tool-memory.d.ts", () => {
  // The bare module specifiers of a packed declaration file and of those it imports, relatively.
  const reached = (start) => {
    const seen = new Set()
    const bare = new Set()
    const queue = [start]
    while (queue.length > 0) {
      const file = queue.shift()
      if (seen.has(file)) continue
      seen.add(file)
      const text = main.get(file).toString('utf8')
      for (const [, spec] of text.matchAll(/(?:from|import\()\s*'([^']+)'/g)) {
        if (!spec.startsWith('.')) {
          bare.add(spec)
          continue
        }
        const base = path.posix.join(path.posix.dirname(file), spec).replace(/\.(c|m)?js$/, '')
        const ext = spec.endsWith('.cjs') ? '.d.cts' : spec.endsWith('.mjs') ? '.d.mts' : '.d.ts'
        queue.push(main.has(base + ext) ? base + ext : base + '.d.ts')
      }
    }
    return [...bare]
  }
  for (const ext of ['d.cts', 'd.mts']) {
    expect(reached(`package/openai-agents/index.${ext}`).sort()).toEqual(['@openai/agents'])
    expect(reached(`package/ai-sdk/index.${ext}`).sort()).toEqual(['ai'])
    expect(reached(`package/langchain/index.${ext}`).some((s) => s === 'ai' || s.startsWith('@openai/'))).toBe(false)
  }
})
