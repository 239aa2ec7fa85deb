'use strict'
// The doc-test script's rule (scripts/doctest.js): which fenced blocks run,
// which are only type-checked, which are not executed, and that a block that
// fails as a reader would run it fails the run.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { blocksOf, modeOf, extensionOf, outputMismatch } = require('../scripts/doctest.js')

const fence = '```'

describe('doctest: extraction and the rule', () => {
  test('finds fenced blocks (backticks, tildes, indented in a list) with their line and info string', () => {
    const md = ['# t', '', `${fence}ts`, 'const a = 1', fence, '', '- item', '', `  ${fence}js test`, '  test("x", () => {})', `  ${fence}`, '', '~~~sh', 'npm test', '~~~', `${fence}`, 'plain', fence].join('\n')
    const blocks = blocksOf(md)
    expect(blocks.map((b) => [b.line, b.lang, b.flags, b.code])).toEqual([
      [3, 'ts', [], 'const a = 1\n'],
      [9, 'js', ['test'], 'test("x", () => {})\n'],
      [13, 'sh', [], 'npm test\n'],
      [16, '', [], 'plain\n'],
    ])
  })

  test('js/mjs/cjs/ts run; "test" runs under jest; "typecheck" only type-checks; other languages are not executed', () => {
    const mode = (info) => modeOf(blocksOf(`${fence}${info}\nx\n${fence}`)[0])
    expect(['js', 'mjs', 'cjs', 'ts', 'typescript', 'javascript'].map(mode)).toEqual(Array(6).fill('run'))
    expect([mode('ts test'), mode('js test')]).toEqual(['test', 'test'])
    expect([mode('ts typecheck'), mode('js typecheck')]).toEqual(['typecheck', 'typecheck'])
    expect(['sh', 'text', 'json', '', 'rust'].map(mode)).toEqual([null, null, null, null, null])
  })

  test('a js block is ESM when a line starts with import or export, else CommonJS', () => {
    const ext = (info, code) => {
      const b = blocksOf(`${fence}${info}\n${code}\n${fence}`)[0]
      return extensionOf(b, modeOf(b))
    }
    expect(ext('js', "import { Ledger } from '@symfonic/core'")).toBe('.mjs')
    expect(ext('js', "const { Ledger } = require('@symfonic/core')")).toBe('.cjs')
    expect(ext('ts', "import { Ledger } from '@symfonic/core'")).toBe('.mts')
    expect(ext('ts', "const { Ledger } = require('@symfonic/core')")).toBe('.cts')
    expect(ext('ts test', "import { Ledger } from '@symfonic/core'")).toBe('.test.cts')
    expect(ext('mjs', 'x')).toBe('.mjs')
  })
})

describe('doctest: a run block followed by a `text output` block prints it', () => {
  test('line by line; a line ending in " …" matches any line starting with what comes before', () => {
    expect(outputMismatch('a\nb …\n', 'a\nbcd\n')).toBeNull()
    expect(outputMismatch('a\nb\n', 'a\nc\n')).toBe('output line 2: expected "b", got "c"')
    expect(outputMismatch('a\n', 'a\nmore\n')).toBe('output line 2: expected "(no more lines)", got "more"')
  })

  test('a block whose output differs fails the run', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doctest-output-'))
    try {
      const md = path.join(dir, 'out.md')
      fs.writeFileSync(md, `${fence}js\nconsole.log('one')\nconsole.log('two three')\n${fence}\n\nprose\n\n${fence}text output\none\ntwo …\n${fence}\n`)
      const run = () => spawnSync(process.execPath, [path.join(__dirname, '..', 'scripts', 'doctest.js'), md], { encoding: 'utf8' })
      expect(run().stdout).toMatch(/ok    .*out\.md:1 \(js\), output as shown/)
      fs.writeFileSync(md, `${fence}js\nconsole.log('one')\n${fence}\n\n${fence}text output\nuno\n${fence}\n`)
      const failed = run()
      expect(failed.status).toBe(1)
      expect(failed.stderr).toContain('its output is not the `text output` block after it\n      output line 1: expected "uno", got "one"')
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('doctest: a run', () => {
  test('passes a block that runs and fails one that a reader could not run (require with top-level await)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doctest-test-'))
    try {
      const good = path.join(dir, 'good.md')
      const bad = path.join(dir, 'bad.md')
      fs.writeFileSync(good, `${fence}js\nconst { memIdFor } = require('@symfonic/core')\nif (!memIdFor('a', 'b').startsWith('trm_')) process.exit(1)\n${fence}\n\n${fence}sh\nexit 1\n${fence}\n`)
      fs.writeFileSync(bad, `${fence}js\nconst { Ledger } = require('@symfonic/core')\nawait new Ledger().fetch('trm_000000000000')\n${fence}\n`)
      const run = (file) => spawnSync(process.execPath, [path.join(__dirname, '..', 'scripts', 'doctest.js'), file], { encoding: 'utf8' })
      const ok = run(good)
      expect(ok.status).toBe(0)
      expect(ok.stdout).toMatch(/1 blocks run.*not executed: 1 sh; all passed/)
      const failed = run(bad)
      expect(failed.status).toBe(1)
      expect(failed.stderr).toMatch(/FAIL .*bad\.md:1 \(js\)[\s\S]*await is only valid in async functions/)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
