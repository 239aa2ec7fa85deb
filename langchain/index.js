'use strict'
// `@symfonic/core/langchain`: LangChain.js / LangGraph.js integration.
// Exports are listed one by one so ESM named imports see them. Each factory
// refuses to be passed uncalled (misuse.js).

const memory = require('./memory.js')
const palette = require('./palette.js')
const { refuseUncalled } = require('./misuse.js')

exports.createRecallToolResultTool = refuseUncalled(memory.createRecallToolResultTool)
exports.compactToolMessages = memory.compactToolMessages
exports.toolMemoryMiddleware = refuseUncalled(memory.toolMemoryMiddleware)
exports.toolMemoryPreModelHook = refuseUncalled(memory.toolMemoryPreModelHook)
exports.cacheModelFor = memory.cacheModelFor
exports.usageTotals = memory.usageTotals

exports.toolPaletteMiddleware = refuseUncalled(palette.toolPaletteMiddleware)
exports.DEFAULTS = memory.DEFAULTS
exports.PRICING = memory.PRICING
