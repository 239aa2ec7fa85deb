'use strict'
// What an image costs a model, in input tokens, by the providers' published
// formulas (no decoding: the pixel size comes from the header, describeBlock).
//   Anthropic: scaled down, aspect kept, until its long edge is at most 1,568
//   px and it is at most about 1,600 tokens; then width × height / 750.
//   OpenAI (detail high, the default for 'auto' on large images): scaled to
//   fit 2,048 × 2,048, then its short side down to 768; 85 tokens plus 170 a
//   512-px tile. Detail low: 85.

const ANTHROPIC_LONG_EDGE = 1568
const ANTHROPIC_MAX_TOKENS = 1600

function anthropicTokens(w, h) {
  const scale = Math.min(1, ANTHROPIC_LONG_EDGE / Math.max(w, h), Math.sqrt((ANTHROPIC_MAX_TOKENS * 750) / (w * h)))
  return Math.ceil((Math.floor(w * scale) * Math.floor(h * scale)) / 750)
}

function openaiTokens(w, h, detail) {
  if (detail === 'low') return 85
  let s = Math.min(1, 2048 / Math.max(w, h))
  let [x, y] = [w * s, h * s]
  s = Math.min(1, 768 / Math.min(x, y))
  ;[x, y] = [Math.floor(x * s), Math.floor(y * s)]
  return 85 + 170 * Math.ceil(x / 512) * Math.ceil(y / 512)
}

/**
 * Input tokens of an image of `width` × `height` pixels for `provider`
 * (`'anthropic'` or `'openai'`; `detail` `'high'` or `'low'` for OpenAI).
 */
function imageTokens(width, height, provider, detail = 'high') {
  if (!(width >= 1 && height >= 1)) return 0
  return provider === 'openai' ? openaiTokens(width, height, detail) : anthropicTokens(width, height)
}

module.exports = { imageTokens }
