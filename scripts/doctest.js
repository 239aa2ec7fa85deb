#!/usr/bin/env node
'use strict'
// `npm run doctest`: every fenced code block of README.md, CONTRIBUTING.md and
// docs/*.md runs (or type-checks) as written, against this checkout, so the
// documentation cannot drift from the package.
//
// The rule, by the block's info string:
//   js, mjs, cjs, ts      run as written (ts: type-checked under strict,
//                         exactOptionalPropertyTypes and noUncheckedIndexedAccess,
//                         then run);
//   ts test, js test      a jest test file: type-checked (ts), then run by jest;
//   ts typecheck,
//   js typecheck          type-checked only (for fragments that need your app,
//                         a real model or a server to run);
//   anything else         (sh, text, json, ...) not executed.
// A run block followed by a `text output` block must print that text (its
// stdout, line by line; an expected line ending in " …" matches any line
// that starts with what comes before it).
// A `js` block is ESM when a line starts with `import` or `export`, else
// CommonJS (so a block mixing `require` with top-level `await` fails, as it
// would for a reader); a `ts` block is ESM unless it only uses `require`.
//
// Blocks run in a scratch folder outside the repository whose node_modules
// holds `@symfonic/core` (a link to this checkout) and links to the
// checkout's own dependencies, so a block imports the package by name, as an
// app does. Each block runs in its own empty working directory (files it
// writes, such as `./ledger.db`, stay there), in its own process, with a
// time limit. Blocks need no network: a model comes from `fakeModel()`
// (langchain) or another fake chat model of `@langchain/core`.
//
// Usage: node scripts/doctest.js [file.md ...] [--list] [--keep]

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn, spawnSync } = require('node:child_process')

const root = path.resolve(__dirname, '..')
const TIMEOUT_MS = 120_000
const PARALLEL = Math.max(1, Math.min(2, os.cpus().length))

// ---------------------------------------------------------------- extraction

const LANGS = { js: 'js', javascript: 'js', mjs: 'mjs', cjs: 'cjs', ts: 'ts', typescript: 'ts' }

/** The fenced blocks of a Markdown text: { line (1-based, of the opening fence), lang, flags, code }. */
function blocksOf(text) {
  const lines = text.split('\n')
  const out = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([^`]*)$/.exec(lines[i])
    if (!open) continue
    const [, indent, fence, info] = open
    const body = []
    let j = i + 1
    for (; j < lines.length; j++) {
      const close = new RegExp(`^\\s*${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`).exec(lines[j])
      if (close) break
      body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j].trimStart())
    }
    const words = info.trim().split(/\s+/).filter(Boolean)
    out.push({ line: i + 1, lang: (words[0] || '').toLowerCase(), flags: words.slice(1), code: body.join('\n') + '\n' })
    i = j
  }
  return out
}

/** What the rule does with a block: 'run', 'test', 'typecheck' or null (not executed). */
function modeOf(block) {
  const lang = LANGS[block.lang]
  if (lang === undefined) return null
  if (block.flags.includes('typecheck')) return 'typecheck'
  if (block.flags.includes('test')) return 'test'
  return 'run'
}

const isEsm = (code) => /^\s*(import|export)\s/m.test(code)

function extensionOf(block, mode) {
  const lang = LANGS[block.lang]
  if (mode === 'test') return lang === 'ts' ? '.test.cts' : '.test.cjs'
  if (lang === 'mjs') return '.mjs'
  if (lang === 'cjs') return '.cjs'
  if (lang === 'js') return isEsm(block.code) ? '.mjs' : '.cjs'
  return isEsm(block.code) || !/\brequire\(/.test(block.code) ? '.mts' : '.cts'
}

// ---------------------------------------------------------------- scratch folder

function link(target, at) {
  fs.mkdirSync(path.dirname(at), { recursive: true })
  fs.symlinkSync(target, at, 'dir')
}

/** node_modules with @symfonic/core -> this checkout, and the checkout's dependencies. */
function scratchModules(dir) {
  const from = path.join(root, 'node_modules')
  const to = path.join(dir, 'node_modules')
  fs.mkdirSync(to, { recursive: true })
  for (const name of fs.readdirSync(from)) {
    if (name.startsWith('.')) continue
    const entry = path.join(from, name)
    if (name.startsWith('@')) {
      for (const sub of fs.readdirSync(entry)) {
        if (name === '@symfonic') continue
        link(path.join(entry, sub), path.join(to, name, sub))
      }
    } else {
      link(entry, path.join(to, name))
    }
  }
  link(root, path.join(to, '@symfonic', 'core'))
}

// ---------------------------------------------------------------- running

function run(cmd, args, cwd) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, FORCE_COLOR: '0' }, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    let stdout = ''
    child.stdout.on('data', (d) => {
      output += d
      stdout += d
    })
    child.stderr.on('data', (d) => (output += d))
    const timer = setTimeout(() => {
      output += `\n[doctest] killed after ${TIMEOUT_MS / 1000} s (a block must finish and exit on its own)`
      child.kill('SIGKILL')
    }, TIMEOUT_MS)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ ok: code === 0, code: code ?? signal, output, stdout })
    })
  })
}

/** Where `stdout` differs from a `text output` block, as a message; null when it matches. */
function outputMismatch(expected, stdout) {
  const want = expected.replace(/\n+$/, '').split('\n')
  const got = stdout.replace(/\n+$/, '').split('\n')
  for (let i = 0; i < Math.max(want.length, got.length); i++) {
    const w = want[i]
    const g = got[i]
    const ok = w !== undefined && g !== undefined && (w.endsWith(' …') ? g.startsWith(w.slice(0, -2)) : g === w)
    if (!ok) return `output line ${i + 1}: expected ${JSON.stringify(w ?? '(no more lines)')}, got ${JSON.stringify(g ?? '(no more lines)')}`
  }
  return null
}

async function pool(jobs, n) {
  const results = new Array(jobs.length)
  let next = 0
  async function worker() {
    while (next < jobs.length) {
      const i = next++
      results[i] = await jobs[i]()
    }
  }
  await Promise.all(Array.from({ length: Math.min(n, jobs.length) }, worker))
  return results
}

// ---------------------------------------------------------------- main

function docFiles(args) {
  if (args.length > 0) return args.map((f) => path.resolve(f))
  const files = ['README.md', 'CONTRIBUTING.md'].map((f) => path.join(root, f)).filter((f) => fs.existsSync(f))
  const docs = path.join(root, 'docs')
  if (fs.existsSync(docs)) {
    for (const f of fs.readdirSync(docs).sort()) if (f.endsWith('.md')) files.push(path.join(docs, f))
  }
  return files
}

async function main() {
  const argv = process.argv.slice(2)
  const list = argv.includes('--list')
  const keep = argv.includes('--keep')
  const files = docFiles(argv.filter((a) => !a.startsWith('--')))

  const blocks = []
  const skipped = new Map()
  for (const file of files) {
    const rel = path.relative(root, file)
    const all = blocksOf(fs.readFileSync(file, 'utf8'))
    for (const [i, b] of all.entries()) {
      const mode = modeOf(b)
      const next = all[i + 1]
      if (mode === 'run' && next && next.lang === 'text' && next.flags.includes('output')) b.expected = next.code
      if (mode === null) {
        skipped.set(b.lang || '(none)', (skipped.get(b.lang || '(none)') ?? 0) + 1)
        continue
      }
      const slug = rel.replace(/\.md$/, '').replace(/[^A-Za-z0-9]+/g, '-').toLowerCase()
      const base = `${slug}-L${b.line}`
      blocks.push({ ...b, file: rel, mode, name: base + extensionOf(b, mode) })
    }
  }
  if (list) {
    for (const b of blocks) console.log(`${b.file}:${b.line}  ${[b.lang, ...b.flags].join(' ')}  -> ${b.mode}`)
    return
  }

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'symfonic-doctest-'))
  let failures = 0
  try {
    scratchModules(dir)
    const src = path.join(dir, 'src')
    fs.mkdirSync(src)
    for (const b of blocks) fs.writeFileSync(path.join(src, b.name), b.code)

    // 1. TypeScript: every ts block (and every js typecheck block) in one strict program.
    const checked = blocks.filter((b) => LANGS[b.lang] === 'ts' || (b.mode === 'typecheck' && LANGS[b.lang] !== 'ts'))
    if (checked.length > 0) {
      const tsconfig = {
        compilerOptions: {
          strict: true,
          // What `tsc --init` enables beside strict: the docs' types must hold under it.
          exactOptionalPropertyTypes: true,
          noUncheckedIndexedAccess: true,
          target: 'ES2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          esModuleInterop: true,
          skipLibCheck: true,
          allowJs: true,
          checkJs: true,
          outDir: 'out',
          rootDir: 'src',
          types: ['node', 'jest'],
        },
        files: checked.map((b) => `src/${b.name}`),
      }
      fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2))
      const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc', { paths: [root] }), '-p', dir, '--pretty', 'false'], { cwd: dir, encoding: 'utf8' })
      if (tsc.status !== 0) {
        // src/<name>(line,col): error ... -> the Markdown file and line
        const byName = new Map(blocks.map((b) => [b.name, b]))
        const text = (tsc.stdout + tsc.stderr).replace(/^src\/([^(]+)\((\d+),(\d+)\)/gm, (m, name, line, col) => {
          const b = byName.get(name)
          return b ? `${b.file}:${b.line + Number(line)}:${col}` : m
        })
        console.error(text.trim())
        failures++
      }
    }

    // 2. Run: plain blocks with node, test blocks with jest.
    const outOf = (b) => {
      if (LANGS[b.lang] !== 'ts') return path.join(src, b.name)
      return path.join(dir, 'out', b.name.replace(/\.mts$/, '.mjs').replace(/\.cts$/, '.cjs'))
    }
    // Run even when the type-check failed (tsc emits anyway): every failure is reported at once.
    const runnable = blocks.filter((b) => b.mode === 'run')
    const tests = blocks.filter((b) => b.mode === 'test')
    const jobs = runnable.map((b, i) => async () => {
      const cwd = path.join(dir, 'run', String(i))
      fs.mkdirSync(cwd, { recursive: true })
      return { b, ...(await run(process.execPath, [outOf(b)], cwd)) }
    })
    if (tests.length > 0) {
      jobs.push(async () => {
        const cwd = path.join(dir, 'run', 'jest')
        fs.mkdirSync(cwd, { recursive: true })
        const config = { rootDir: dir, testEnvironment: 'node', testMatch: tests.map(outOf), transform: {}, testTimeout: 60000 }
        fs.writeFileSync(path.join(dir, 'jest.config.json'), JSON.stringify(config))
        const jest = path.join(path.dirname(require.resolve('jest/package.json', { paths: [root] })), 'bin', 'jest.js')
        return { b: { file: tests.map((t) => `${t.file}:${t.line}`).join(', '), line: '', lang: 'jest', flags: [] }, tests: true, ...(await run(process.execPath, [jest, '--config', path.join(dir, 'jest.config.json'), '--ci'], cwd)) }
      })
    }
    for (const r of await pool(jobs, PARALLEL)) {
      const where = r.tests ? `jest: ${r.b.file}` : `${r.b.file}:${r.b.line} (${[r.b.lang, ...r.b.flags].join(' ')})`
      const mismatch = r.ok && r.b.expected !== undefined ? outputMismatch(r.b.expected, r.stdout) : null
      if (mismatch) {
        failures++
        console.error(`FAIL  ${where}: its output is not the \`text output\` block after it\n      ${mismatch}`)
      } else if (r.ok) {
        console.log(`ok    ${where}${r.b.expected !== undefined ? ', output as shown' : ''}`)
      } else {
        failures++
        console.error(`FAIL  ${where} (exit ${r.code})\n${r.output.trim().split('\n').map((l) => `      ${l}`).join('\n')}`)
      }
    }
    const typecheckOnly = blocks.filter((b) => b.mode === 'typecheck').length
    const notRun = [...skipped].map(([k, v]) => `${v} ${k}`).join(', ')
    console.log(
      `\ndoctest: ${files.length} files, ${runnable.length} blocks run, ${tests.length} jest blocks, ${typecheckOnly} type-checked only` +
        `${notRun ? `; not executed: ${notRun}` : ''}; ${failures === 0 ? 'all passed' : `${failures} failed`}`,
    )
  } finally {
    if (keep) console.log(`scratch folder kept: ${dir}`)
    else fs.rmSync(dir, { recursive: true, force: true })
  }
  if (failures > 0) process.exit(1)
}

if (require.main === module) {
  main().catch((e) => {
    console.error(e)
    process.exit(1)
  })
}

module.exports = { blocksOf, modeOf, extensionOf, outputMismatch, isEsm }
