'use strict'
// A minimal Redis client for tests that look at, or break, what the store
// wrote: one connection, one command at a time, binary-safe (arguments and
// bulk answers are Buffers). Enough of RESP2 for HGET, HSET, HDEL, RENAME,
// EXISTS and KEYS; an error answer rejects.

const net = require('node:net')

function encode(args) {
  const parts = [Buffer.from(`*${args.length}\r\n`)]
  for (const a of args) {
    const b = Buffer.isBuffer(a) ? a : Buffer.from(String(a))
    parts.push(Buffer.from(`$${b.length}\r\n`), b, Buffer.from('\r\n'))
  }
  return Buffer.concat(parts)
}

// One reply parsed from buf at i: { value, end }, or null when incomplete.
function parse(buf, i) {
  const eol = buf.indexOf('\r\n', i)
  if (eol < 0) return null
  const type = String.fromCharCode(buf[i])
  const line = buf.toString('latin1', i + 1, eol)
  const next = eol + 2
  if (type === '+') return { value: line, end: next }
  if (type === '-') return { value: new Error(line), end: next }
  if (type === ':') return { value: Number(line), end: next }
  if (type === '$') {
    const n = Number(line)
    if (n < 0) return { value: null, end: next }
    if (buf.length < next + n + 2) return null
    return { value: buf.subarray(next, next + n), end: next + n + 2 }
  }
  if (type === '*') {
    const n = Number(line)
    const items = []
    let at = next
    for (let k = 0; k < n; k++) {
      const r = parse(buf, at)
      if (!r) return null
      items.push(r.value)
      at = r.end
    }
    return { value: n < 0 ? null : items, end: at }
  }
  throw new Error(`unexpected RESP type ${JSON.stringify(type)}`)
}

async function connect(port) {
  const sock = net.connect({ host: '127.0.0.1', port })
  await new Promise((resolve, reject) => {
    sock.once('connect', resolve)
    sock.once('error', reject)
  })
  let buf = Buffer.alloc(0)
  let waiting = null
  sock.on('data', (d) => {
    buf = Buffer.concat([buf, d])
    const r = waiting && parse(buf, 0)
    if (r) {
      buf = buf.subarray(r.end)
      const w = waiting
      waiting = null
      if (r.value instanceof Error) w.reject(r.value)
      else w.resolve(r.value)
    }
  })
  return {
    /** Sends one command; resolves with its answer. */
    call(...args) {
      return new Promise((resolve, reject) => {
        waiting = { resolve, reject }
        sock.write(encode(args))
      })
    },
    close() {
      sock.destroy()
    },
  }
}

module.exports = { connect }
