'use strict'
// The stub a result of blocks is shown by once the model has read it
// (compaction), and that offload keeps in the state. Where the result's text
// is small beside the ledger's stub of it (`stubEarns`, the rule a text
// result's note follows): the text's first line (what the page, the step
// was), the call that reads the whole text (none when that line is all of
// it), then one line per block; else the full stub (the ledger's stub of the
// text, then the block lines). Built from the text entry as the ledger holds
// it, so offload can check a stub read back from a checkpoint by building it
// again.

const { stubEarns } = require('../core/offers.js')
const { codePoints, oneLine } = require('../core/text.js')

const BLOCK_LINE = /^block (\d+): .*recall_tool_result\(mem_id="(trm_[0-9a-f]{12})"\)$/
// The longest first line kept, in code points.
const HEAD_CHARS = 160
// How much of the text is read first, in full stubs' lengths (past it, the text earns its full stub).
const READ_FACTOR = 16

/**
 * `fullStub`: `recordBlocks`' stub (the text entry's stub, then one line per
 * block); `text`: the text entry as the ledger holds it; `memId`: its id.
 */
function compactBlocksStub(fullStub, text, memId) {
  const lines = fullStub.split('\n')
  let n = lines.length
  while (n > 0 && BLOCK_LINE.test(lines[n - 1])) n--
  const blockLines = lines.slice(n)
  if (n === 0 || blockLines.length === 0 || stubEarns(codePoints(text), codePoints(lines.slice(0, n).join('\n')))) return fullStub
  const [head, ...rest] = text.split('\n')
  // The text entry names every block (else it is not this result's: an answer that it is gone).
  const placeholders = new Set(blockLines.map(placeholderOf))
  const named = new Set(text.split('\n').filter((l) => placeholders.has(l)))
  if (named.size !== placeholders.size) return fullStub
  // A result that begins with a block has no first line of text: the text's first line is that block's placeholder.
  const first = blockLines.some((l) => BLOCK_LINE.exec(l)[1] === '1') ? '' : oneLine(head, HEAD_CHARS).trim()
  // A text that is all in its first line, shown as it is, needs no call to read it.
  if (first !== '' && first === head && rest.every((l) => placeholders.has(l))) return [first, ...blockLines].join('\n')
  const call = `[its text: recall_tool_result(mem_id="${memId}")]`
  return [first === '' ? call : `${first} ${call}`, ...blockLines].join('\n')
}

// The line a block has in the text entry (recordBlocks), from its line in the stub.
function placeholderOf(line) {
  const m = /^block (\d+): (\S+) (.*)\. To see it again: recall_tool_result\(mem_id="(trm_[0-9a-f]{12})"\)$/.exec(line)
  return m === null ? null : `[${m[2]} ${m[1]}: ${m[3]}; mem_id=${m[4]}]`
}

/** The compact stub of the result of blocks `memId` (its full stub `fullStub`) from `ledger`; the full stub when its text cannot be read. */
async function compactStubOf(ledger, memId, fullStub, namespace) {
  try {
    // A text this long earns its full stub: only its head need cross, to tell.
    const head = READ_FACTOR * codePoints(fullStub)
    let text = await ledger.fetch(memId, { namespace, format: 'full', maxChars: head })
    if (typeof text === 'string' && codePoints(text) >= head) {
      if (stubEarns(head, codePoints(fullStub))) return fullStub
      text = await ledger.fetch(memId, { namespace, format: 'full', maxChars: 0 })
    }
    return typeof text === 'string' ? compactBlocksStub(fullStub, text, memId) : fullStub
  } catch {
    return fullStub
  }
}

module.exports = { compactBlocksStub, compactStubOf, BLOCK_LINE }
