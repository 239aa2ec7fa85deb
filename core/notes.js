'use strict'
// The notes compaction writes in place of a result: the one-line note of a
// result the model read long ago, and the note of a recall answer it has
// read. Both are built from the conversation alone (no ledger), so their text
// and size are known to the policy before anything is recorded.

const { codePoints, oneLine } = require('./text.js')
const { callArgs } = require('./call-args.js')

// Compaction's own notes keep their format whatever the ledger's stub version.
const NOTE_HEADER = '[symfonic.tool_memory v1]'
// Longest argument list a recall note repeats; longest tool name a note shows.
const NOTE_MAX_ARGS_CHARS = 300
const NOTE_MAX_NAME_CHARS = 64
// A memory id: "trm_" and 12 hex digits.
const MEM_ID_CHARS = 16

/** The one-line note of a result: the tool, the size, the id and how to recall it. */
function resultNote(toolName, chars, memId) {
  return `[${oneLine(toolName, NOTE_MAX_NAME_CHARS)} result of ${chars} chars not shown: recall_tool_result(mem_id='${memId}', format="full")]`
}

/** Its length in code points, for the policy (which knows no id yet). */
const resultNoteChars = (toolName, chars) => codePoints(resultNote(toolName, chars, 'trm_'.padEnd(MEM_ID_CHARS, '0')))

/** The note of a recall answer the model has read (`call`: the recall's { args }): what it asked for, so that it can ask again. */
function recallNote(call, chars) {
  const args = callArgs(call)
  const memId = typeof args.mem_id === 'string' ? args.mem_id : ''
  let shown = Object.keys(args)
    .filter((k) => args[k] !== undefined && args[k] !== null)
    .sort()
    .map((k) => {
      let v
      try {
        v = JSON.stringify(args[k])
      } catch {
        v = undefined
      }
      return `${k}=${typeof v === 'string' ? v : String(args[k])}`
    })
    .join(', ')
  if (codePoints(shown) > NOTE_MAX_ARGS_CHARS) shown = Array.from(shown).slice(0, NOTE_MAX_ARGS_CHARS).join('') + '...'
  return `${NOTE_HEADER} recall answer already read: recall_tool_result(${shown}) answered ${chars} chars of mem=${memId || '?'}; call it again with the same arguments to see it again.`
}

module.exports = { NOTE_HEADER, resultNote, resultNoteChars, recallNote }
