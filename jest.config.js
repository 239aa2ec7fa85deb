// Test files that need a program missing here (`// needs: redis-server` in
// the file) are left out and named at the end of the run; under CI=true a
// missing program fails instead (__test__/support/needs.js).
const { gate, notice } = require('./__test__/support/needs.js')

const skipped = gate(__dirname)
// A left-out file named on the command line: say why now, since jest itself
// only answers "No tests found".
const named = process.argv.slice(2).filter((a) => !a.startsWith('-'))
const matches = (pattern, file) => {
  try {
    return new RegExp(pattern).test(file)
  } catch {
    return file.includes(pattern)
  }
}
const namedSkipped = skipped.filter((s) => named.some((a) => matches(a, s.file)))
if (namedSkipped.length > 0) process.stderr.write(`${notice(namedSkipped)}\n`)
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  testMatch: ['<rootDir>/__test__/**/*.test.js', '<rootDir>/examples/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', ...skipped.map((s) => `[/\\\\]${s.file.split('/').map(escape).join('[/\\\\]')}$`)],
  reporters: ['default', ['<rootDir>/__test__/support/needs-reporter.js', { skipped }]],
  // The examples are TypeScript, importing the package by name as an app does.
  transform: { '\\.ts$': '<rootDir>/scripts/jest-ts.js', '\\.[cm]?js$': 'babel-jest' },
  moduleNameMapper: { '^@symfonic/core$': '<rootDir>/index.js', '^@symfonic/core/langchain$': '<rootDir>/langchain/index.js', '^@symfonic/core/openai-agents$': '<rootDir>/openai-agents/index.js', '^@symfonic/core/ai-sdk$': '<rootDir>/ai-sdk/index.js' },
  testTimeout: 30000,
};
