// The ESM entry of `@symfonic/core/ai-sdk` (package.json `exports` `import`):
// the CommonJS entry (index.js) re-exported by name, so `import` and `require`
// share one module instance. Keep the list equal to index.js's exports.
import aiSdk from './index.js'

export const { toolMemory, composePrepareStep, usageTotals, cacheModelFor, DEFAULTS, PRICING } = aiSdk

export default aiSdk
