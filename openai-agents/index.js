'use strict'
// `@symfonic/core/openai-agents`: tool-result memory for the OpenAI Agents
// SDK for JS (@openai/agents). docs/openai-agents.md.

const { toolMemory, usageTotals } = require('./tool-memory.js')

exports.toolMemory = toolMemory
exports.usageTotals = usageTotals
