'use strict'
// Bounded memory with a store: 10,000 records of 100 KB go through a ledger
// whose memory holds at most 64 MiB; RSS stays bounded, and every id is still
// recallable, from the store. Measured in a child process
// (support/store-memory-child.js): a jest worker's RSS also holds what the
// test files before this one left, the 1 GB record of bounds.test.js among them.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { execFileSync } = require('node:child_process')

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'symfonic-store-mem-'))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

test('10,000 records of 100 KB through maxBytes 64 MiB: RSS bounded, every id recallable', () => {
  const child = path.join(__dirname, 'support', 'store-memory-child.js')
  const out = execFileSync(process.execPath, ['--expose-gc', child, path.join(dir, 'mem.db')], { encoding: 'utf8', timeout: 110000 })
  const r = JSON.parse(out)
  expect(r.bytes).toBeLessThanOrEqual(64 * 1024 * 1024 + 200 * 1024)
  expect(r.entries).toBeLessThan(r.n)
  // 1 GB went through; the process grew by far less (the memory bound plus slack).
  expect(r.growth).toBeLessThan(256 * 1024 * 1024)
  // Every id answers, most of them from the store.
  expect(r.wrong).toEqual([])
  expect(r.storeHits).toBeGreaterThan(50)
}, 120000)
