const { Ledger } = require('.')
const net = require('net')
;(async () => {
  try { await Ledger.open({ store: 'sqlite:/tmp/nc/no/such/folder/ledger.db' }) } catch (e) { console.log(e.code, '|', e.message) }
  // a non-Redis server: an HTTP-like one answering junk
  const srv = net.createServer((s) => { s.on('data', () => s.write('HTTP/1.1 400 Bad Request\r\n\r\n')) }).listen(0)
  await new Promise(r => srv.on('listening', r))
  try { await Ledger.open({ store: `redis://127.0.0.1:${srv.address().port}/0`, timeoutMs: 2000 }) } catch (e) { console.log(e.code, '|', e.message) }
  // a server that accepts and says nothing
  const quiet = net.createServer(() => {}).listen(0)
  await new Promise(r => quiet.on('listening', r))
  try { await Ledger.open({ store: `redis://127.0.0.1:${quiet.address().port}/0`, timeoutMs: 1000 }) } catch (e) { console.log(e.code, '|', e.message) }
  // closed port
  try { await Ledger.open({ store: `redis://127.0.0.1:1/0`, timeoutMs: 1000 }) } catch (e) { console.log(e.code, '|', e.message) }
  srv.close(); quiet.close()
})()
