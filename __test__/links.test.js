'use strict'
// The documentation link check (scripts/links.js): GitHub's anchors of
// headings, links in code not taken for links, and a run that fails on a
// missing file or anchor.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { anchorsOf, proseLines } = require('../scripts/links.js')

const fence = '```'

describe('links: anchors and what counts as a link', () => {
  test('anchors as GitHub makes them: lower case, punctuation and code marks dropped, spaces as hyphens, repeats numbered', () => {
    const md = ['# Stores: ledgers that outlive the process', '## Entries: `handle`, `stub`, `has`', '## Sizing', '## Sizing', `${fence}sh`, '# not a heading', fence, '### Format v1 (entries recorded before v2)'].join('\n')
    expect([...anchorsOf(md)]).toEqual([
      'stores-ledgers-that-outlive-the-process',
      'entries-handle-stub-has',
      'sizing',
      'sizing-1',
      'format-v1-entries-recorded-before-v2',
    ])
  })

  test('fenced blocks and inline code are not prose', () => {
    expect(proseLines(['see [a](a.md) and `[b](b.md)`', fence, '[c](c.md)', fence].join('\n'))).toEqual(['see [a](a.md) and ', '', '', ''])
  })

  test('a missing file or anchor fails the run, naming the line; links to the web are not checked', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'links-'))
    try {
      fs.writeFileSync(path.join(dir, 'b.md'), '# B\n\n## Part two\n')
      fs.writeFileSync(path.join(dir, 'a.md'), '# A\n\n[ok](b.md#part-two) [web](https://example.com/x#y)\n[gone](c.md) [anchor](b.md#part-three) [self](#a)\n')
      const run = (f) => spawnSync(process.execPath, [path.join(__dirname, '..', 'scripts', 'links.js'), path.join(dir, f)], { encoding: 'utf8' })
      const bad = run('a.md')
      expect(bad.status).toBe(1)
      expect(bad.stderr).toMatch(/a\.md:4: c\.md: no such file/)
      expect(bad.stderr).toMatch(/a\.md:4: b\.md#part-three: no heading with that anchor/)
      expect(bad.stdout).toMatch(/4 relative links, 2 broken/)
      expect(run('b.md').status).toBe(0)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
