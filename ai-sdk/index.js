'use strict'
// `@symfonic/core/ai-sdk`: tool-result memory for the Vercel AI SDK (ai 6
// and 7). Loads nothing of `ai` itself: the tool and prepareStep are plain
// objects and functions the SDK calls. Exports are listed one by one so ESM
// named imports see them.

const { toolMemory, composePrepareStep, usageTotals } = require('./tool-memory.js')
const { cacheModelFor, DEFAULTS, PRICING } = require('../core/index.js')

exports.toolMemory = toolMemory
exports.composePrepareStep = composePrepareStep
exports.usageTotals = usageTotals
exports.cacheModelFor = cacheModelFor
exports.DEFAULTS = DEFAULTS
exports.PRICING = PRICING
