'use strict'
// Image prices by the providers' published formulas, on their own worked
// examples and on real screenshots' sizes (fixtures/images).

const { imageTokens } = require('../core/image-tokens.js')

test("Anthropic's examples: about width × height / 750, scaled to a 1,568-px long edge and ~1,600 tokens", () => {
  expect(imageTokens(200, 200, 'anthropic')).toBe(54)
  expect(imageTokens(1000, 1000, 'anthropic')).toBe(1334)
  expect(imageTokens(1092, 1092, 'anthropic')).toBe(1590)
  // A 1280×800 screenshot; a 600×4000 full page scaled to 235×1568.
  expect(imageTokens(1280, 800, 'anthropic')).toBe(1366)
  expect(imageTokens(600, 4000, 'anthropic')).toBe(Math.ceil((235 * 1568) / 750))
})

test("OpenAI's examples: 85 + 170 per 512-px tile after the resize; low detail 85", () => {
  expect(imageTokens(1024, 1024, 'openai')).toBe(765)
  expect(imageTokens(2048, 4096, 'openai')).toBe(1105)
  expect(imageTokens(4096, 8192, 'openai', 'low')).toBe(85)
  expect(imageTokens(1280, 800, 'openai')).toBe(85 + 170 * 6)
  expect(imageTokens(600, 4000, 'openai')).toBe(85 + 170 * 4)
  expect(imageTokens(1, 1, 'openai')).toBe(255)
  expect(imageTokens(0, 10, 'openai')).toBe(0)
})
