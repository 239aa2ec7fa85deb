'use strict'
// Waits for a condition instead of sleeping: polls every 10 ms, fails after `ms`.
async function until(cond, ms = 2000) {
  const end = Date.now() + ms
  for (;;) {
    if (await cond()) return
    if (Date.now() > end) throw new Error('condition not met in time')
    await new Promise((r) => setTimeout(r, 10))
  }
}

module.exports = { until }
