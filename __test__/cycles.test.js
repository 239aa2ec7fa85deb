'use strict'
// scripts/cycles.js (a CI step) finds every import cycle between a crate's
// modules: one hidden behind a quote inside a character literal, one closed
// through a re-export, and none where a path is only text; the real crates
// have none.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')

const root = path.join(__dirname, '..')
const script = path.join(root, 'scripts', 'cycles.js')
let dir

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'symfonic-cycles-'))
})
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true })
})

/** A crate of `files` ({ 'lib.rs': '…' }) checked by the script: its exit status and output. */
function check(files) {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true })
    fs.writeFileSync(path.join(dir, rel), text)
  }
  const r = spawnSync(process.execPath, [script, dir], { encoding: 'utf8' })
  return { status: r.status, out: r.stdout + r.stderr }
}

// json uses outline; each case adds (or only seems to add) outline -> json.
const json = 'use crate::outline::Outline;\npub struct JsonDoc(Outline);\n'
const MODS = 'pub mod json;\npub mod outline;\n'
const crate = (outline, lib = MODS) => ({ 'lib.rs': lib, 'json.rs': json, 'outline.rs': `pub struct Outline;\n${outline}` })

test.each([
  ['a byte literal holding a quote', `fn q() -> u8 { b'"' }\nuse crate::json::JsonDoc;\n`, MODS],
  ['a char literal holding a quote', `fn q() -> char { '"' }\nuse crate::json::JsonDoc;\n`, MODS],
  ['an escaped quote in a char literal', `fn q() -> char { '\\'' }\nfn r(_: crate::json::JsonDoc) {}\n`, MODS],
  ['lifetimes and a label', `fn f<'a>(x: &'a str) -> &'a str { 'outer: loop { break 'outer x } }\nuse crate::json::JsonDoc;\n`, MODS],
  ['a raw string and a nested block comment before it', `const S: &str = r#"say "hi""#;\n/* a /* nested */ comment */\nuse crate::json::JsonDoc;\n`, MODS],
  ['a re-export at the crate root', 'fn q(_: &crate::JsonDoc) {}\n', `${MODS}pub use json::JsonDoc;\n`],
  ['a re-export under another name, used in a use tree', 'use crate::{Doc as D};\n', `${MODS}pub use json::{JsonDoc as Doc};\n`],
  ['a glob re-export', 'use crate::JsonDoc;\n', `${MODS}pub use json::*;\n`],
])('a cycle through %s is caught', (_, outline, lib) => {
  const r = check(crate(outline, lib))
  expect(r.status).toBe(1)
  expect(r.out).toContain('import cycle among the modules of crate: json, outline')
  expect(r.out).toMatch(/outline -> json: outline\.rs: /)
})

test('a path in a string, a comment or a test item is no edge', () => {
  const outline = [
    'const A: &str = "use crate::json::JsonDoc;";',
    'const B: &[u8] = br#"crate::json::JsonDoc"#;',
    "const C: char = '\\\\';",
    '// use crate::json::JsonDoc;',
    '/* crate::json::JsonDoc /* nested */ crate::json::JsonDoc */',
    '#[cfg(test)]',
    'mod tests { use crate::json::JsonDoc; }',
    '',
  ].join('\n')
  const r = check(crate(outline))
  expect([r.status, r.out]).toEqual([0, `${dir}: 3 modules, 1 sibling imports, 0 cycles\n`])
})

test('the real crates have no cycle', () => {
  const r = spawnSync(process.execPath, [script], { cwd: root, encoding: 'utf8' })
  expect(r.stderr).toBe('')
  expect(r.status).toBe(0)
  expect(r.stdout).toMatch(/^crates\/symfonic-core\/src: \d+ modules, \d+ sibling imports, 0 cycles\nsrc: \d+ modules, \d+ sibling imports, 0 cycles\n$/)
})
