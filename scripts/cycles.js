'use strict'
// A CI step: no import cycle between the Rust modules of a crate.
//
// `node scripts/cycles.js [crate-src-dir ...]` (default: the core crate and the
// binding). Every `crate::…`, `super::…` and `self::…` path in a file (use
// trees included; comments, strings, character literals and `#[cfg(test)]`
// items left out; test files skipped) is an edge from the file's module to
// the module it names and, where it names an item another module re-exports
// (`pub use json::JsonDoc` in lib.rs, then `crate::JsonDoc`), to the module
// the re-export names too. An edge is lifted to the two sibling modules under
// the deepest common parent, so `ledger::read -> store::row` counts as
// `ledger -> store`, and a parent using its child (or the child its parent) is
// no edge. Any cycle among siblings fails the run, with the files and paths
// that close it. __test__/cycles.test.js holds the cases it must catch.

const fs = require('node:fs')
const path = require('node:path')

const ROOTS = process.argv.length > 2 ? process.argv.slice(2) : ['crates/symfonic-core/src', 'src']

function isTestFile(rel) {
  return /(^|\/)(\w*_)?(tests|proptests|testing)\.rs$/.test(rel) || /(^|\/)tests\//.test(rel)
}

// The module path of a file: `a/b.rs` and `a/b/mod.rs` are ['a', 'b']; lib.rs is [].
function modulePath(rel) {
  const parts = rel.replace(/\.rs$/, '').split('/')
  if (parts[parts.length - 1] === 'mod' || parts[parts.length - 1] === 'lib') parts.pop()
  return parts
}

// Comments (nested block comments included), string literals (plain, byte,
// C and raw) and character and byte literals blanked, same length and lines,
// so paths inside them are not read and a quote inside one (`'"'`, `b'"'`)
// opens nothing. A lifetime or a label (`'a`, `'static`) is left as it is.
function stripNoise(src) {
  const out = src.split('')
  const blank = (from, to) => {
    for (let k = from; k < to; k++) if (out[k] !== '\n') out[k] = ' '
  }
  const ident = (c) => c !== undefined && /\w/.test(c)
  // From a quote (at q) on: an escape (\n, \', \x7f, \u{…}) or one code point, then the closing quote.
  const CHAR = /'(?:\\(?:u\{[0-9a-fA-F_]+\}|x[0-9a-fA-F]{2}|[^\n])|[^'\\\n\r\t])'/uy
  const RAW = /(?:br|cr|r)(#*)"/y
  let i = 0
  while (i < src.length) {
    const c = src[i]
    let m
    if (c === '/' && src[i + 1] === '/') {
      const end = src.indexOf('\n', i)
      const to = end < 0 ? src.length : end
      blank(i, to)
      i = to
    } else if (c === '/' && src[i + 1] === '*') {
      let depth = 0
      let j = i
      while (j < src.length) {
        if (src[j] === '/' && src[j + 1] === '*') {
          depth++
          j += 2
        } else if (src[j] === '*' && src[j + 1] === '/') {
          j += 2
          if (--depth === 0) break
        } else j++
      }
      blank(i, j)
      i = j
    } else if (ident(c) && ident(src[i - 1])) {
      i++ // inside an identifier: `attr"` or `self'` cannot start a literal
    } else if (((RAW.lastIndex = i), (m = RAW.exec(src)))) {
      // r"…", r#"…"#, br#"…"#, cr"…": closed by a quote and as many #.
      const close = '"' + m[1]
      const end = src.indexOf(close, i + m[0].length)
      const to = end < 0 ? src.length : end + close.length
      blank(i, to)
      i = to
    } else if (c === '"' || ((c === 'b' || c === 'c') && src[i + 1] === '"')) {
      let j = c === '"' ? i + 1 : i + 2
      while (j < src.length && src[j] !== '"') j += src[j] === '\\' ? 2 : 1
      blank(i, j + 1)
      i = j + 1
    } else if (c === "'" || (c === 'b' && src[i + 1] === "'")) {
      const q = c === "'" ? i : i + 1
      CHAR.lastIndex = q
      if ((m = CHAR.exec(src))) {
        blank(i, q + m[0].length)
        i = q + m[0].length
      } else i = q + 1 // a lifetime or a label: `'a`, `'static`, `'outer:`
    } else i++
  }
  return out.join('')
}

// `#[cfg(test)]` items (inline test modules, test-only helpers) removed by brace matching.
function stripTestItems(src) {
  let out = src
  for (;;) {
    const at = out.search(/#\[cfg\(test\)\]/)
    if (at < 0) return out
    const open = out.indexOf('{', at)
    const semi = out.indexOf(';', at)
    let end
    if (semi >= 0 && (open < 0 || semi < open)) end = semi + 1
    else {
      let depth = 0
      for (end = open; end < out.length; end++) {
        if (out[end] === '{') depth++
        else if (out[end] === '}' && --depth === 0) break
      }
      end++
    }
    out = out.slice(0, at) + out.slice(end).replace(/^/, '')
  }
}

// Expands a use tree (`a::{b, c::{d as e}}`) into its paths, each with the
// name it brings into scope (`b`, `e`; null for a glob).
function expandUse(tree) {
  tree = tree.replace(/\s+/g, ' ').replace(/\s*(::|[{},])\s*/g, '$1').trim()
  const brace = tree.indexOf('{')
  if (brace < 0) {
    return tree
      .split(',')
      .filter(Boolean)
      .map((leaf) => {
        const [p, alias] = leaf.split(' as ')
        if (p.endsWith('::*')) return { path: p.slice(0, -3), name: null }
        return { path: p, name: alias || p.split('::').pop() }
      })
  }
  const prefix = tree.slice(0, brace)
  let depth = 0
  let close = brace
  for (; close < tree.length; close++) {
    if (tree[close] === '{') depth++
    else if (tree[close] === '}' && --depth === 0) break
  }
  const inner = tree.slice(brace + 1, close)
  const parts = []
  let start = 0
  depth = 0
  for (let i = 0; i <= inner.length; i++) {
    const c = inner[i]
    if (c === '{') depth++
    else if (c === '}') depth--
    else if ((c === ',' || i === inner.length) && depth === 0) {
      if (i > start) parts.push(inner.slice(start, i))
      start = i + 1
    }
  }
  return parts.flatMap((p) => {
    const [head, alias] = p.split(' as ')
    if (head === 'self') {
      const path = prefix.replace(/::$/, '')
      return [{ path, name: alias || path.split('::').pop() }]
    }
    return expandUse(prefix + p)
  })
}

const USE = /\b(pub(?:\s*\([^)]*\))?\s+)?use\s+([^;]+);/g

function referencedPaths(src) {
  const paths = []
  for (const m of src.matchAll(USE)) paths.push(...expandUse(m[2]).map((u) => u.path))
  const withoutUse = src.replace(USE, '')
  for (const m of withoutUse.matchAll(/\b(?:crate|super|self)(?:::\w+)+/g)) paths.push(m[0])
  return paths.filter((p) => /^(crate|super|self)::/.test(p))
}

// A path as written in module `from`, made absolute (a list of segments from
// the crate root); null for a path into another crate.
function absolute(p, from, known) {
  const segs = p.split('::')
  if (segs[0] === 'crate') return segs.slice(1)
  if (segs[0] === 'super' || segs[0] === 'self') {
    const base = from.slice()
    while (segs[0] === 'super' || segs[0] === 'self') {
      if (segs.shift() === 'super') base.pop()
    }
    return base.concat(segs)
  }
  // A 2018 use path may start at a child module of `from`.
  return known.has(from.concat(segs[0]).join('::')) ? from.concat(segs) : null
}

function check(root) {
  const files = []
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name)
      if (e.isDirectory()) walk(p)
      else if (e.name.endsWith('.rs')) files.push(path.relative(root, p).split(path.sep).join('/'))
    }
  }
  walk(root)
  const known = new Set(files.filter((f) => !isTestFile(f)).map((f) => modulePath(f).join('::')))
  const sources = new Map()
  for (const rel of files) {
    if (!isTestFile(rel)) sources.set(rel, stripTestItems(stripNoise(fs.readFileSync(path.join(root, rel), 'utf8'))))
  }
  // What each module re-exports: name -> the absolute path it stands for, and its globs.
  const reexports = new Map()
  const globs = new Map()
  for (const [rel, src] of sources) {
    const from = modulePath(rel)
    const key = from.join('::')
    for (const m of src.matchAll(USE)) {
      if (!m[1]) continue
      for (const u of expandUse(m[2])) {
        const abs = absolute(u.path, from, known)
        if (abs === null) continue
        if (u.name === null) {
          if (!globs.has(key)) globs.set(key, [])
          globs.get(key).push(abs)
        } else {
          if (!reexports.has(key)) reexports.set(key, new Map())
          reexports.get(key).set(u.name, abs)
        }
      }
    }
  }
  // The modules a path names: the longest prefix that is a module, and, where
  // the next segment is that module's re-export, the modules it resolves to.
  const resolve = (target, depth = 0) => {
    let to = []
    for (let n = target.length; n >= 0; n--) {
      if (known.has(target.slice(0, n).join('::'))) {
        to = target.slice(0, n)
        break
      }
    }
    const out = [to]
    if (depth > 8 || target.length === to.length) return out
    const key = to.join('::')
    const rest = target.slice(to.length + 1)
    const re = reexports.has(key) && reexports.get(key).get(target[to.length])
    if (re) out.push(...resolve(re.concat(rest), depth + 1))
    else for (const g of globs.get(key) || []) out.push(...resolve(g.concat(target.slice(to.length)), depth + 1))
    return out
  }
  const edges = new Map() // "parent|a|b" -> [evidence]
  for (const [rel, src] of sources) {
    const from = modulePath(rel)
    for (const p of referencedPaths(src)) {
      const target = absolute(p, from, known)
      if (target === null) continue
      for (const to of resolve(target)) addEdge(rel, p, from, to)
    }
  }
  function addEdge(rel, p, from, to) {
    let k = 0
    while (k < from.length && k < to.length && from[k] === to[k]) k++
    if (k === from.length || k === to.length) return // self, parent or child
    const key = `${from.slice(0, k).join('::')}|${from[k]}|${to[k]}`
    if (!edges.has(key)) edges.set(key, [])
    const ev = `${rel}: ${p}`
    if (!edges.get(key).includes(ev)) edges.get(key).push(ev)
  }
  // Cycles among the siblings of each parent (Tarjan's strongly connected components).
  const byParent = new Map()
  for (const key of edges.keys()) {
    const [parent, a, b] = key.split('|')
    if (!byParent.has(parent)) byParent.set(parent, new Map())
    const g = byParent.get(parent)
    if (!g.has(a)) g.set(a, new Set())
    if (!g.has(b)) g.set(b, new Set())
    g.get(a).add(b)
  }
  const cycles = []
  for (const [parent, g] of byParent) {
    let index = 0
    const idx = new Map()
    const low = new Map()
    const stack = []
    const on = new Set()
    const strong = (v) => {
      idx.set(v, index)
      low.set(v, index++)
      stack.push(v)
      on.add(v)
      for (const w of g.get(v)) {
        if (!idx.has(w)) {
          strong(w)
          low.set(v, Math.min(low.get(v), low.get(w)))
        } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)))
      }
      if (low.get(v) === idx.get(v)) {
        const comp = []
        let w
        do {
          w = stack.pop()
          on.delete(w)
          comp.push(w)
        } while (w !== v)
        if (comp.length > 1) cycles.push({ parent, comp })
      }
    }
    for (const v of g.keys()) if (!idx.has(v)) strong(v)
  }
  for (const { parent, comp } of cycles) {
    const where = parent === '' ? 'crate' : `crate::${parent}`
    console.error(`${root}: import cycle among the modules of ${where}: ${comp.sort().join(', ')}`)
    for (const a of comp) {
      for (const b of comp) {
        const ev = edges.get(`${parent}|${a}|${b}`)
        if (ev) console.error(`  ${a} -> ${b}: ${ev.slice(0, 3).join('; ')}${ev.length > 3 ? ` (+${ev.length - 3})` : ''}`)
      }
    }
  }
  return { modules: known.size, edges: edges.size, cycles: cycles.length }
}

let failed = false
for (const root of ROOTS) {
  const r = check(root)
  console.log(`${root}: ${r.modules} modules, ${r.edges} sibling imports, ${r.cycles} cycles`)
  if (r.cycles > 0) failed = true
}
process.exit(failed ? 1 : 0)
