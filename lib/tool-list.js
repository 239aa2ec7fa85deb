'use strict'
// What is known about one tool list, computed once per list: its names cross
// to the native matcher (lib/palette.js) only when a list is new or has
// changed. The cache is keyed on the array and re-validated on every call
// (same length, same objects, same names), because arrays and tools are mutable.

const { ToolNameList } = require('./native.js')

function nameOf(tool) {
  if (tool === null || (typeof tool !== 'object' && typeof tool !== 'function')) return undefined
  const name = tool.name
  return typeof name === 'string' ? name : undefined
}

class ListEntry {
  constructor(tools, names) {
    this.tools = tools // a snapshot: the caller's array may change later
    this.names = names
    this.native = undefined // ToolNameList, made on first use
    this.out = undefined // Uint32Array the native side writes indices into
    this.byName = undefined // { first: Map name -> index of its first tool, named: count }
    this.unique = undefined // no tool listed twice, no name used twice
  }

  // Shares what depends on the names only, from an entry with the same names.
  adoptNames(other) {
    this.native = other.native
    this.out = other.out
    this.byName = other.byName
  }

  nativeList() {
    if (this.native === undefined) {
      this.native = new ToolNameList(encodeNames(this.names))
      this.out = new Uint32Array(this.tools.length)
    }
    return this.native
  }

  firstIndex(name) {
    return this.#byName().first.get(name)
  }

  isUnique() {
    if (this.unique === undefined) {
      const { first, named } = this.#byName()
      // Distinct names for every tool imply distinct objects.
      this.unique = named === this.tools.length ? first.size === named : new Set(this.tools).size === this.tools.length && first.size === named
    }
    return this.unique
  }

  #byName() {
    if (this.byName === undefined) {
      const first = new Map()
      let named = 0
      for (let i = 0; i < this.names.length; i++) {
        const name = this.names[i]
        if (name === undefined) continue
        named++
        if (!first.has(name)) first.set(name, i)
      }
      this.byName = { first, named }
    }
    return this.byName
  }
}

// The wire format of ToolNameList: `+name` per named tool, `-` otherwise,
// joined by `\0` (no provider accepts it in a name), as one string. The native
// side reads its UTF-16 units as they are: UTF-8 would turn a lone surrogate
// into U+FFFD, and `x\uDFFF_admin` would then admit a tool named `x\uD800_admin`.
function encodeNames(names) {
  let wire = ''
  for (let i = 0; i < names.length; i++) {
    const name = names[i]
    const segment = name === undefined || name.includes('\0') ? '-' : '+' + name
    wire = i === 0 ? segment : wire + '\0' + segment
  }
  return wire
}

const listEntries = new WeakMap()
// The entry made last: a new array holding the same names (`[...tools]` on
// every call, say) reuses its native list instead of sending the names again.
// Held weakly: it must not keep a dropped tool list alive.
let lastEntry

function sameNames(a, b) {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

function listEntry(tools) {
  const n = tools.length
  const cached = listEntries.get(tools)
  if (cached !== undefined && cached.tools.length === n) {
    const sameTools = cached.tools
    const sameNames = cached.names
    let i = 0
    while (i < n) {
      const tool = tools[i]
      if (tool !== sameTools[i] || nameOf(tool) !== sameNames[i]) break
      i++
    }
    if (i === n) return cached
  }
  const snapshot = new Array(n)
  const names = new Array(n)
  for (let i = 0; i < n; i++) {
    const tool = tools[i]
    snapshot[i] = tool
    names[i] = nameOf(tool)
  }
  const entry = new ListEntry(snapshot, names)
  const last = lastEntry?.deref()
  if (last !== undefined && sameNames(last.names, names)) entry.adoptNames(last)
  lastEntry = new WeakRef(entry)
  listEntries.set(tools, entry)
  return entry
}

module.exports = { nameOf, encodeNames, listEntry }
