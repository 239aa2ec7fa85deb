// The ESM entry of `@symfonic/core` (package.json `exports` `import`): the
// CommonJS entry (index.js) re-exported by name, so `import` and `require`
// share one module instance, one native binding and one set of classes.
// Keep the list equal to index.js's exports (`npm run typecheck` checks it).
import core from './index.js'

export const {
  MAX_OUTPUT_CHARS,
  Ledger,
  memIdFor,
  recall,
  readBlocks,
  describeBlock,
  blocksAnswer,
  ROLES,
  StaticPaletteResolver,
  resolvePalette,
  applyPalette,
} = core

export default core
