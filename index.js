'use strict'
// The package entry: the generated napi loader (binding.js) wrapped with the
// little JS that has to live on the JS side (recall over JS ledgers, palettes
// that hand back the caller's own tool objects). Exports are listed one by one
// so that ESM `import { Ledger } from '@symfonic/core'` sees them by name.

const binding = require('./binding.js')
const recall = require('./lib/recall.js')
const palette = require('./lib/palette.js')

exports.MAX_OUTPUT_CHARS = recall.MAX_OUTPUT_CHARS
exports.Ledger = recall.Ledger
exports.memIdFor = binding.memIdFor
exports.recall = recall.recall

exports.ROLES = palette.ROLES
exports.StaticPaletteResolver = palette.StaticPaletteResolver
exports.resolvePalette = palette.resolvePalette
exports.applyPalette = palette.applyPalette
