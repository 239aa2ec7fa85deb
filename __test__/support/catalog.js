'use strict'
// A JSON catalog of about `bytes` bytes, for the tests of records under load;
// `extra` goes into each row's title (non-ASCII text, surrogate pairs).

function catalog(bytes, extra = '') {
  const rows = []
  for (let k = 0, size = 0; size < bytes; k++) {
    const row = `{"k":${k},"t":"item ${k}${extra} heavy duty garden hose"}`
    rows.push(row)
    size += row.length + 1
  }
  return `{"rows":[${rows.join(',')}]}`
}

module.exports = { catalog }
