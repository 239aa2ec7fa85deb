// The ESM entry of `@symfonic/core/langchain` (package.json `exports` `import`):
// the CommonJS entry (index.js) re-exported by name, so `import` and `require`
// share one module instance. Keep the list equal to index.js's exports
// (`npm run typecheck` checks it).
import langchain from './index.js'

export const {
  createRecallToolResultTool,
  compactToolMessages,
  toolMemoryMiddleware,
  toolMemoryPreModelHook,
  cacheModelFor,
  usageTotals,
  toolPaletteMiddleware,
  DEFAULTS,
  PRICING,
} = langchain

export default langchain
