'use strict'
// `@symfonic/core/langchain`: LangChain.js / LangGraph.js integration.
// Exports are listed one by one so ESM named imports see them.

const memory = require('./memory.js')
const palette = require('./palette.js')

exports.createRecallToolResultTool = memory.createRecallToolResultTool
exports.compactToolMessages = memory.compactToolMessages
exports.toolMemoryMiddleware = memory.toolMemoryMiddleware
exports.toolMemoryPreModelHook = memory.toolMemoryPreModelHook
exports.cacheModelFor = memory.cacheModelFor

exports.toolPaletteMiddleware = palette.toolPaletteMiddleware
exports.DEFAULTS = memory.DEFAULTS
exports.PRICING = memory.PRICING
