'use strict'
// What hindsight could save (benchmark/context/oracle.js), on a conversation
// small enough to solve by hand: four calls, two tool results, breakpoint
// caching (write 1.25×, read 0.1×, no blocks), costs in characters.

const { floorCost, oracleCost, oracleSchedule } = require('../benchmark/context/oracle.js')
const { price } = require('../benchmark/context/pricing.js')

const seg = (head, fill, chars) => head + fill.repeat(chars - head.length)
const TOOLS = 'T'.repeat(100)
const S = seg('<system>', 's', 400)
const H = seg('<human>', 'h', 100)
const A0 = seg('<ai name=model>', 'a', 100)
const R0 = '<tool name=run id=c0>' + 'r'.repeat(4000) // 4,021 characters
const A1 = seg('<ai name=model>', 'b', 100)
const R1 = '<tool name=run id=c1>' + 'q'.repeat(150) // 171
const A2 = seg('<ai name=model>', 'c', 100)
// R0's note, as the package writes it: 119 characters in place of 4,021.
const N0 = `<tool name=run id=c0>[run result of 4000 chars not shown: recall_tool_result(mem_id='trm_000000000000', format="full")]`

// The replay without compaction: each call's request.
const requests = [[S, H], [S, H, A0, R0], [S, H, A0, R0, A1, R1], [S, H, A0, R0, A1, R1, A2]].map((messages) => ({ tools: TOOLS, messages }))
const USD = 3e-6 / 4 // pricing.js: $3 per million tokens, 4 characters per token

describe('the hindsight oracle and the floor, solved by hand', () => {
  test('none: each request reads the previous one from the cache and writes the rest', () => {
    // 1.25×600; 0.1×600 + 1.25×4,121; 0.1×4,721 + 1.25×271; 0.1×4,992 + 1.25×100
    expect(N0.length).toBe(119)
    expect(price(requests, 'breakpoint').cost / USD).toBeCloseTo(750 + 5211.25 + 810.85 + 624.2, 6)
  })

  test('the floor: a result vanishes after the call that read it, for free', () => {
    // Call 2 no longer has R0 (read by call 1), call 3 neither R1; nothing is written again.
    // 750; 5,211.25; 0.1×700 + 1.25×271; 0.1×800 + 1.25×100
    expect(floorCost(requests, 'breakpoint') / USD).toBeCloseTo(750 + 5211.25 + 408.75 + 205, 6)
  })

  test('the oracle compacts R0 at call 2 (one later call repays it) and keeps R1 (none would)', () => {
    // R0 at its fresh position, call 2: its note written, R0 not read (1.25×119 − 0.1×4,021 = −253)
    // and one later call reads the note instead (−0.1×3,902): worth it. R1 at call 3, the last
    // call: 1.25×its note − 0.1×171 > 0 and no later call: not worth it.
    expect([...oracleSchedule(requests, 'breakpoint')]).toEqual([[3, 2]])
    // Call 1 marks A0, so call 2 reads S, H and A0 from the cache and writes from the note on:
    // 750; 5,211.25; 0.1×700 + 1.25×(119 + 271); 0.1×(700 + 119 + 271) + 1.25×100
    const byHand = 750 + 5211.25 + (70 + 1.25 * 390) + (0.1 * 1090 + 125)
    expect(oracleCost(requests, 'breakpoint') / USD).toBeCloseTo(byHand, 6)
    // Between the floor and no compaction.
    expect(byHand).toBeGreaterThan(6575)
    expect(byHand).toBeLessThan(7396.3)
  })
})
