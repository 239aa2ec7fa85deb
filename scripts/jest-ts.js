'use strict'
// A jest transform for the TypeScript of examples/: the project's own
// `typescript` strips the types (to CommonJS, as jest runs it) without
// checking them; `npm run typecheck` checks them with tsc.

const ts = require('typescript')

module.exports = {
  process(source, filename) {
    const out = ts.transpileModule(source, {
      fileName: filename,
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true, sourceMap: false, inlineSourceMap: true },
    })
    return { code: out.outputText }
  },
}
