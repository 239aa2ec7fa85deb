#!/usr/bin/env node
'use strict'
// The documentation's relative links resolve: every `[text](target)` of
// README.md, CONTRIBUTING.md, docs/*.md and benchmark/README.md names a file
// or folder of this checkout, and every `#anchor` a heading of its page (as
// GitHub makes anchors of headings). Links to the web are not fetched.
//
// Usage: node scripts/links.js [file.md ...]

const fs = require('node:fs')
const path = require('node:path')

const root = path.resolve(__dirname, '..')

function defaultFiles() {
  const docs = fs.readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => path.join('docs', f))
  return ['README.md', 'CONTRIBUTING.md', ...docs, 'benchmark/README.md'].map((f) => path.join(root, f))
}

/** The text outside fenced code blocks and inline code, line by line (numbers kept). */
function proseLines(text) {
  let fence = null
  return text.split('\n').map((line) => {
    const open = /^\s*(`{3,}|~{3,})/.exec(line)
    if (fence === null && open) {
      fence = open[1]
      return ''
    }
    if (fence !== null) {
      if (new RegExp(`^\\s*${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`).test(line)) fence = null
      return ''
    }
    return line.replace(/(`+)[^`]*?\1/g, '')
  })
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens; repeats get -1, -2, … */
function anchorsOf(text) {
  const seen = new Map()
  const out = new Set()
  let fence = null
  for (const line of text.split('\n')) {
    const open = /^\s*(`{3,}|~{3,})/.exec(line)
    if (open && (fence === null || line.trim().startsWith(fence))) {
      fence = fence === null ? open[1] : null
      continue
    }
    if (fence !== null) continue
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (!h) continue
    const base = h[1]
      .replace(/<[^>]*>/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
      .replace(/ /g, '-')
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    out.add(n === 0 ? base : `${base}-${n}`)
  }
  return out
}

function main() {
  const args = process.argv.slice(2)
  const files = args.length > 0 ? args.map((f) => path.resolve(f)) : defaultFiles()
  const anchors = new Map()
  const anchorsFor = (file) => {
    if (!anchors.has(file)) anchors.set(file, anchorsOf(fs.readFileSync(file, 'utf8')))
    return anchors.get(file)
  }
  const problems = []
  let links = 0
  for (const file of files) {
    const rel = path.relative(root, file)
    proseLines(fs.readFileSync(file, 'utf8')).forEach((line, i) => {
      for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
        const target = m[1]
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue // http:, https:, mailto:
        links++
        const [pathPart, anchor] = target.split('#')
        const to = pathPart === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(pathPart))
        const where = `${rel}:${i + 1}`
        if (!fs.existsSync(to)) {
          problems.push(`${where}: ${target}: no such file`)
          continue
        }
        if (anchor === undefined || anchor === '') continue
        if (!to.endsWith('.md')) {
          problems.push(`${where}: ${target}: an anchor into a file that is not Markdown`)
        } else if (!anchorsFor(to).has(decodeURIComponent(anchor))) {
          problems.push(`${where}: ${target}: no heading with that anchor in ${path.relative(root, to)}`)
        }
      }
    })
  }
  for (const p of problems) console.error(p)
  console.log(`links: ${files.length} files, ${links} relative links, ${problems.length === 0 ? 'all resolve' : `${problems.length} broken`}`)
  if (problems.length > 0) process.exit(1)
}

if (require.main === module) main()

module.exports = { anchorsOf, proseLines }
