'use strict'
// The package entry: the generated napi loader (binding.js) wrapped with the
// little JS that has to live on the JS side (argument checks, recall over
// ledgers written in JS, palettes that hand back the caller's own tool
// objects). Exports are listed one by one so that ESM
// `import { Ledger } from '@symfonic/core'` sees them by name.

const ledger = require('./lib/ledger.js')
const { recall, MAX_OUTPUT_CHARS } = require('./lib/recall.js')
const palette = require('./lib/palette.js')
const { applyPalette } = require('./lib/apply-palette.js')

exports.MAX_OUTPUT_CHARS = MAX_OUTPUT_CHARS
exports.Ledger = ledger.Ledger
exports.memIdFor = ledger.memIdFor
exports.recall = recall

const blocks = require('./lib/blocks.js')
exports.readBlocks = blocks.readBlocks
exports.blocksAnswer = require('./lib/block-answer.js').blocksAnswer
exports.describeBlock = require('./lib/native.js').describeBlock

exports.ROLES = palette.ROLES
exports.StaticPaletteResolver = palette.StaticPaletteResolver
exports.resolvePalette = palette.resolvePalette
exports.applyPalette = applyPalette
