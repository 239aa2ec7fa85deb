'use strict'
// A CI step: no import cycle between the Rust modules of a crate.
//
// `node scripts/cycles.js [crate-src-dir ...]` (default: the core crate and the
// binding). Every `crate::…`, `super::…` and `self::…` path in a file (use
// trees included; comments, strings and `#[cfg(test)]` items left out; test
// files skipped) is an edge from the file's module to the module it names.
// An edge is lifted to the two sibling modules under the deepest common
// parent, so `ledger::read -> store::row` counts as `ledger -> store`, and a
// parent using its child (or the child its parent) is no edge. Any cycle
// among siblings fails the run, with the files and paths that close it.

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

// Comments, string and char literals blanked (same length), so paths inside them are not read.
function stripNoise(src) {
  return src
    .replace(/\/\*[\s\S]*?\*\//g, (m) => m.replace(/[^\n]/g, ' '))
    .replace(/r#*"[\s\S]*?"#*|"(?:\\[\s\S]|[^"\\])*"|\/\/[^\n]*/g, (m) => m.replace(/[^\n]/g, ' '))
    .replace(/'(?:\\.|[^'\\\n])'/g, "' '")
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

// Expands a use tree (`a::{b, c::{d, e}}`) into its paths.
function expandUse(tree) {
  tree = tree.replace(/\s+/g, '')
  const brace = tree.indexOf('{')
  if (brace < 0) return tree.split(',').filter(Boolean).map((p) => p.replace(/(::\*|as\w+)$/, ''))
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
  return parts.flatMap((p) => (p === 'self' ? [prefix.replace(/::$/, '')] : expandUse(prefix + p)))
}

function referencedPaths(src) {
  const paths = []
  for (const m of src.matchAll(/\buse\s+([^;]+);/g)) paths.push(...expandUse(m[1]))
  const withoutUse = src.replace(/\buse\s+[^;]+;/g, '')
  for (const m of withoutUse.matchAll(/\b(?:crate|super|self)(?:::\w+)+/g)) paths.push(m[0])
  return paths.filter((p) => /^(crate|super|self)::/.test(p))
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
  const edges = new Map() // "parent|a|b" -> [evidence]
  for (const rel of files) {
    if (isTestFile(rel)) continue
    const from = modulePath(rel)
    const src = stripTestItems(stripNoise(fs.readFileSync(path.join(root, rel), 'utf8')))
    for (const p of referencedPaths(src)) {
      const segs = p.split('::')
      let base
      if (segs[0] === 'crate') base = []
      else {
        base = from.slice()
        while (segs[0] === 'super' || segs[0] === 'self') {
          if (segs.shift() === 'super') base.pop()
        }
        segs.unshift('crate')
      }
      const target = base.concat(segs.slice(1))
      // The longest prefix that names a module of this crate.
      let to = null
      for (let n = target.length; n >= 0; n--) {
        if (known.has(target.slice(0, n).join('::'))) {
          to = target.slice(0, n)
          break
        }
      }
      if (to === null) continue
      let k = 0
      while (k < from.length && k < to.length && from[k] === to[k]) k++
      if (k === from.length || k === to.length) continue // self, parent or child
      const key = `${from.slice(0, k).join('::')}|${from[k]}|${to[k]}`
      if (!edges.has(key)) edges.set(key, [])
      edges.get(key).push(`${rel}: ${p}`)
    }
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
