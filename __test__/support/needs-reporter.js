'use strict'
// A jest reporter that prints, after jest's own summary, which test files
// jest.config.js left out because a program they need is not on the PATH.

const { notice } = require('./needs.js')

class NeedsReporter {
  constructor(globalConfig, options) {
    this.skipped = (options && options.skipped) || []
  }
  onRunComplete() {
    if (this.skipped.length > 0) process.stderr.write(`\n${notice(this.skipped)}\n`)
  }
}

module.exports = NeedsReporter
