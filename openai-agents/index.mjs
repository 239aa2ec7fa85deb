// The ESM entry of `@symfonic/core/openai-agents` (package.json `exports` `import`):
// the CommonJS entry (index.js) re-exported by name, so `import` and `require`
// share one module instance. Keep the list equal to index.js's exports.
import openaiAgents from './index.js'

export const { toolMemory, usageTotals } = openaiAgents

export default openaiAgents
