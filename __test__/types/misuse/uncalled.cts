// Mistakes whose compile error must say what to do: scripts/typecheck.js
// compiles this file, expects an error on the line after each `// error:`
// comment, and checks that the error's text contains what follows `error:`.
import { createAgent, fakeModel } from 'langchain'
import { toolMemoryMiddleware, toolMemoryPreModelHook, toolPaletteMiddleware } from '@symfonic/core/langchain'

const model = fakeModel()

// error: toolMemoryMiddleware makes a middleware: call it, toolMemoryMiddleware()
createAgent({ model, tools: [], middleware: [toolMemoryMiddleware] })
// error: toolPaletteMiddleware makes a middleware: call it, toolPaletteMiddleware({ roleTools, role })
createAgent({ model, tools: [], middleware: [toolPaletteMiddleware] })
// error: toolMemoryPreModelHook makes a preModelHook: call it, toolMemoryPreModelHook()
createAgent({ model, tools: [], middleware: [toolMemoryPreModelHook] })
// error: toolMemoryPreModelHook() is a createReactAgent preModelHook; in createAgent use toolMemoryMiddleware()
createAgent({ model, tools: [], middleware: [toolMemoryPreModelHook()] })
