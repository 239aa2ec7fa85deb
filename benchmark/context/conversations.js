'use strict'
// The scripted conversations of the context-economics benchmark.
//
// A conversation is a list of user turns; each turn is a list of steps the
// scripted model takes: `calls` (tool calls, issued in parallel) or `answer`
// (the final reply of the turn, `answer` characters long). Before taking a
// step the model has `needs`: facts it must read from earlier tool results.
// A step right after a `calls` step also needs to *read* each of those
// results (the `read` detail says which slice it would recall if it could
// not see the body). What a need costs is decided by the harness, from what
// is actually in the prompt (see harness.js).
//
// Sizes are chosen to look like real sessions: catalogs and exports of
// hundreds of KB, source files and logs of 10-40 KB, small lookups of a few
// hundred bytes to a few KB, answers of a few hundred to a few thousand chars.

const P = require('./payloads.js')

const call = (id, tool, args, payload, read = { format: 'full' }) => ({ id, tool, args, payload, read })
const calls = (...cs) => ({ calls: cs })
const answer = (chars, ...needs) => ({ answer: chars, needs })
const need = (ref, detail) => ({ ref, detail })
const turn = (user, ...steps) => ({ user, steps })
// Needs attached to the first step of a turn (the user's question is about
// an old result before any new tool is called).
const withNeeds = (step, ...needs) => ({ ...step, needs: [...(step.needs || []), ...needs] })

const SYSTEM = (role) =>
  `You are ${role}. Answer precisely and cite the data you used. ` +
  'Tool results can be large; prefer asking for the slice you need. ' +
  P.prose('system:' + role, 1600)

// ---------------------------------------------------------------------------
// 1. One giant result (a 540 KB catalog) revisited over ten turns.
function giant() {
  const cat = P.catalog('spring-2026', 1500)
  const hist = (s) => P.priceHistory(s)
  const supplier = (s) => JSON.stringify({ sku: s, supplier: { id: 'SUP-77', name: 'Nordlys Trading', lead_time_days: 12, terms: P.prose('sup' + s, 1200) } })
  return {
    name: 'giant',
    title: 'one giant result (a 540 KB catalog) revisited over 10 turns',
    system: SYSTEM('a catalog analyst for a home-goods retailer'),
    tools: {
      get_catalog: { description: 'Load a full seasonal product catalog as JSON ({ meta, items[] }).', args: { season: 'string' } },
      get_price_history: { description: 'Daily price history of one SKU as JSON.', args: { sku: 'string' } },
      get_supplier: { description: 'Supplier record for one SKU.', args: { sku: 'string' } },
    },
    turns: [
      turn('Load the spring-2026 catalog and tell me how it is organised.',
        calls(call('cat', 'get_catalog', { season: 'spring-2026' }, cat, { json_path: 'meta' })),
        answer(900)),
      turn('Which items are out of stock right now?', answer(700, need('cat', { query: '"stock":0,' }))),
      turn('What does SKU-00412 cost, and how has its price moved?',
        withNeeds(calls(call('h412', 'get_price_history', { sku: 'SKU-00412' }, hist('SKU-00412'))), need('cat', { json_path: 'items.412' })),
        answer(600)),
      turn('Compare it with SKU-01077.',
        withNeeds(calls(call('h1077', 'get_price_history', { sku: 'SKU-01077' }, hist('SKU-01077'))), need('cat', { json_path: 'items.1077' })),
        answer(700)),
      turn("What's the best-rated item in lighting?", answer(500, need('cat', { query: '"rating":5,' }))),
      turn('Draft a short promo blurb for SKU-00412.', answer(900)),
      turn('How many items are tagged "pallet"?', answer(400, need('cat', { query: 'pallet' }))),
      turn('Show me the last item in the catalog.', answer(400, need('cat', { json_path: 'items.-1' }))),
      turn('Who supplies SKU-00873, and what is its lead time?',
        withNeeds(calls(call('sup873', 'get_supplier', { sku: 'SKU-00873' }, supplier('SKU-00873'))), need('cat', { json_path: 'items.873' })),
        answer(500)),
      turn('Summarise what we found today.', answer(1200)),
    ],
  }
}

// ---------------------------------------------------------------------------
// 2. Many medium results: a code investigation reading files, searches and
// test logs of 7-30 KB, one to three per step, with a few revisits.
function medium() {
  const f = (path, kb) => call(`f:${path}`, 'read_file', { path }, P.sourceFile(path, kb * 1000))
  const s = (q, n) => call(`s:${q}`, 'search_code', { query: q }, P.searchHits(q, n))
  const t = (target, kb) => call(`t:${target}`, 'run_tests', { target }, P.testLog(target, kb * 1000))
  return {
    name: 'medium',
    title: 'many medium results (18 of 7-30 KB) in a code investigation',
    system: SYSTEM('a senior engineer debugging a payments service'),
    tools: {
      search_code: { description: 'Search the repository; returns JSON hits with snippets.', args: { query: 'string' } },
      read_file: { description: 'Read one source file in full.', args: { path: 'string' } },
      run_tests: { description: 'Run a test target and return its log.', args: { target: 'string' } },
    },
    turns: [
      turn('Refunds are sometimes charged twice. Find where refunds are processed.',
        calls(s('refund', 36)),
        calls(f('src/payments/refund.ts', 24), f('src/payments/charge.ts', 18)),
        answer(1000)),
      turn('Run the payment tests.', calls(t('payments', 16)), answer(700)),
      turn('Now look at the retry logic in the queue worker.',
        calls(s('retry', 40)),
        calls(f('src/queue/worker.ts', 30), f('src/queue/backoff.ts', 12)),
        answer(1000)),
      turn('Could a retry cause the double charge? Check how charges are made idempotent.',
        withNeeds(calls(f('src/payments/idempotency.ts', 14), f('src/payments/store.ts', 22)), need('f:src/payments/charge.ts', { query: 'srcpaymentschargetsFn3' })),
        answer(1100)),
      turn('Run the queue tests.', calls(t('queue', 20)), answer(600)),
      turn('Which payment tests failed earlier?', answer(500, need('t:payments', { query: 'FAIL' }))),
      turn('Check the webhook handler too.',
        calls(s('webhook', 30)),
        calls(f('src/webhooks/handler.ts', 28), f('src/webhooks/verify.ts', 10), f('src/webhooks/events.ts', 16)),
        answer(900)),
      turn('Write a fix for refund.ts.',
        withNeeds(calls(f('src/payments/types.ts', 9)), need('f:src/payments/refund.ts', { query: 'srcpaymentsrefundtsFn2' })),
        answer(2500)),
      turn('Add a regression test and look at the existing test helpers.',
        calls(f('test/helpers/payments.ts', 20), f('test/payments/refund.test.ts', 26)),
        answer(2000)),
      turn('Re-run all the tests.', calls(t('all', 26)), answer(600)),
      turn('Anything in the worker that still worries you?', answer(800, need('f:src/queue/worker.ts', { query: 'srcqueueworkertsFn4' }))),
      turn('Summarise the fix for the PR description.', answer(1500)),
    ],
  }
}

// ---------------------------------------------------------------------------
// 3. A long mixed session: small lookups, medium pages and files, two large
// exports, and many questions about results from earlier turns (recalls).
function mixed() {
  const weather = (d) => JSON.stringify({ city: 'Lyon', day: d, temp_c: 14, wind_kmh: 11, sky: 'broken clouds', hourly: P.prose('w' + d, 380) })
  return {
    name: 'mixed',
    title: 'a long mixed session: small, medium and large results, 11 revisits',
    system: SYSTEM('an operations analyst for an online shop'),
    tools: {
      get_weather: { description: 'Weather for a city and day.', args: { city: 'string', day: 'string' } },
      query_db: { description: 'Run a read-only SQL query; returns JSON rows.', args: { sql: 'string' } },
      web_fetch: { description: 'Fetch a web page as text.', args: { url: 'string' } },
      list_files: { description: 'List files in a folder.', args: { path: 'string' } },
      read_file: { description: 'Read a file in full.', args: { path: 'string' } },
    },
    turns: [
      turn("Morning! What's the weather in Lyon today?",
        calls(call('w1', 'get_weather', { city: 'Lyon', day: 'today' }, weather('today'))), answer(200)),
      turn("Pull last quarter's orders by region.",
        calls(call('q1', 'query_db', { sql: 'select * from orders_q1' }, P.tableRows('q1', 1200), { json_path: '[0:40]' })), answer(800)),
      turn('Which region grew fastest?', answer(500, need('q1', { query: '"region":"west"' }))),
      turn("Read the competitor's pricing page.",
        calls(call('comp', 'web_fetch', { url: 'https://competitor.example/pricing' }, P.prose('comp', 45000))), answer(800)),
      turn('Summarise it in three bullets.', answer(400, need('comp', { format: 'full' }))),
      turn('List the files in the reports folder.',
        calls(call('ls', 'list_files', { path: 'reports/' }, P.prose('ls', 1500))), answer(300)),
      turn('Open reports/q1-notes.md.',
        calls(call('notes', 'read_file', { path: 'reports/q1-notes.md' }, P.prose('notes', 12000))), answer(600)),
      turn('What did the notes say about the west region?', answer(500, need('notes', { query: 'region' }))),
      turn("Fetch the supplier's terms page.",
        calls(call('terms', 'web_fetch', { url: 'https://supplier.example/terms' }, P.prose('terms', 60000))), answer(700)),
      turn('Get the full order export for March.',
        calls(call('march', 'query_db', { sql: 'select * from orders where month = 3' }, P.tableRows('march', 2800), { json_path: '[0:40]' })), answer(600)),
      turn('How many March orders came from the south?', answer(300, need('march', { query: '"region":"south"' }))),
      turn('And the weather in Lyon tomorrow?',
        calls(call('w2', 'get_weather', { city: 'Lyon', day: 'tomorrow' }, weather('tomorrow'))), answer(200)),
      turn("Compare the competitor's prices with our Q1 numbers.",
        answer(900, need('comp', { query: 'price' }), need('q1', { json_path: '5' }))),
      turn('Read reports/q2-plan.md.',
        calls(call('plan', 'read_file', { path: 'reports/q2-plan.md' }, P.prose('plan', 18000))), answer(600)),
      turn("Does the plan fit the supplier's terms?", answer(800, need('terms', { query: 'delay' }))),
      turn('Pull refunds by region for March.',
        calls(call('refunds', 'query_db', { sql: 'select * from refunds where month = 3' }, P.tableRows('refunds', 230))), answer(500)),
      turn('Which region has the highest refund rate relative to orders?',
        answer(600, need('refunds', { query: 'north' }), need('march', { json_path: '-1' }))),
      turn('Write the weekly report.', answer(3000, need('notes', { query: 'forecast' }), need('plan', { query: 'forecast' }))),
    ],
  }
}

// ---------------------------------------------------------------------------
// 4. A long agent loop inside one user turn, 28 sequential tool steps (the
// shape of an autonomous coding task), then two follow-ups. Compaction that
// waits for the turn boundary cannot help within the turn.
function agentLoop() {
  const f = (path, kb) => call(`f:${path}`, 'read_file', { path }, P.sourceFile(path, kb * 1000))
  const s = (q, n) => call(`s:${q}`, 'search_code', { query: q }, P.searchHits(q, n))
  const t = (target, kb) => call(`t:${target}`, 'run_tests', { target }, P.testLog(target, kb * 1000))
  const e = (path, n) => call(`e:${path}:${n}`, 'edit_file', { path, patch: `hunk ${n}` }, JSON.stringify({ ok: true, path, hunk: n, diff: P.prose(`diff${path}${n}`, 900) }))
  const loop = []
  const areas = ['billing', 'invoices', 'ledger', 'exports', 'reports', 'tax', 'currency', 'audit']
  areas.forEach((a, i) => {
    loop.push(calls(s(a, 24 + i)))
    loop.push(calls(f(`src/${a}/index.ts`, 10 + ((i * 7) % 18))))
    if (i % 2 === 1) loop.push(calls(t(a, 8 + i)))
    loop.push(calls(e(`src/${a}/index.ts`, i)))
  })
  return {
    name: 'agentLoop',
    title: 'a long agent loop (28 tool steps in one user turn) and two follow-ups',
    system: SYSTEM('an autonomous coding agent migrating a billing service to a new money type'),
    tools: {
      search_code: { description: 'Search the repository; returns JSON hits with snippets.', args: { query: 'string' } },
      read_file: { description: 'Read one source file in full.', args: { path: 'string' } },
      run_tests: { description: 'Run a test target and return its log.', args: { target: 'string' } },
      edit_file: { description: 'Apply a patch to a file.', args: { path: 'string', patch: 'string' } },
    },
    turns: [
      turn('Migrate every module under src/ from number amounts to the Money type, run the tests as you go, and report.', ...loop, answer(2500)),
      turn('Which test failures did you see in the invoices tests?', answer(500, need('t:invoices', { query: 'FAIL' }))),
      turn('Show me how the tax module handled rounding before your change.', answer(700, need('f:src/tax/index.ts', { query: 'srctaxindextsFn1' }))),
    ],
  }
}

// ---------------------------------------------------------------------------
// 5. A research loop with parallel tool calls: each step fetches two to four
// pages or searches at once (several ToolMessages per AIMessage), 12 steps in
// one user turn, then two follow-ups about pages read in the loop.
function parallelLoop() {
  const page = (id, kb) => call(`p:${id}`, 'web_fetch', { url: `https://docs.example/${id}` }, P.prose(`page-${id}`, kb * 1000))
  const srch = (q, n) => call(`s:${q}`, 'web_search', { query: q }, P.searchHits(q, n))
  const topics = ['caching', 'retries', 'quotas', 'batching', 'streaming', 'webhooks']
  const loop = []
  topics.forEach((t, i) => {
    loop.push(calls(srch(t, 18 + 2 * i), srch(`${t} limits`, 14 + i)))
    const width = 2 + (i % 3)
    loop.push(calls(...Array.from({ length: width }, (_, k) => page(`${t}-${k}`, 9 + ((i * 5 + k * 7) % 16)))))
  })
  return {
    name: 'parallelLoop',
    title: 'a research loop with parallel calls (12 steps, 2-4 results each) and two follow-ups',
    system: SYSTEM('a research assistant comparing API platforms'),
    tools: {
      web_search: { description: 'Search the web; returns JSON hits with snippets.', args: { query: 'string' } },
      web_fetch: { description: 'Fetch a web page as text.', args: { url: 'string' } },
    },
    turns: [
      turn('Compare how the big API platforms handle caching, retries, quotas, batching, streaming and webhooks. Read their docs and write a report.', ...loop, answer(3000)),
      turn('What exactly did the quotas pages say about burst limits?', answer(600, need('p:quotas-1', { query: 'window' }))),
      turn('And the retries docs: is there a maximum backoff?', answer(500, need('p:retries-0', { query: 'retry' }), need('p:retries-1', { query: 'timeout' }))),
    ],
  }
}

// ---------------------------------------------------------------------------
// 6. An ops session that alternates long tool loops with short follow-ups:
// three investigations of 5-8 steps (metrics, logs, configs), each followed
// by one or two questions answered from what was already read.
function alternating() {
  const metrics = (svc, kb) => call(`m:${svc}`, 'query_metrics', { service: svc }, P.tableRows(`metrics-${svc}`, Math.round(kb * 11)))
  const logs = (svc, kb) => call(`l:${svc}`, 'fetch_logs', { service: svc }, P.testLog(`logs-${svc}`, kb * 1000))
  const cfg = (svc, kb) => call(`c:${svc}`, 'read_config', { service: svc }, P.sourceFile(`deploy/${svc}.yaml`, kb * 1000))
  const ok = (svc, n) => call(`r:${svc}:${n}`, 'restart', { service: svc }, JSON.stringify({ ok: true, service: svc, attempt: n, events: P.prose(`restart${svc}${n}`, 600) }))
  return {
    name: 'alternating',
    title: 'an ops session: three long tool loops (5-8 steps) alternating with short follow-ups',
    system: SYSTEM('an SRE on call for a checkout platform'),
    tools: {
      query_metrics: { description: 'Per-minute metrics of a service as JSON rows.', args: { service: 'string' } },
      fetch_logs: { description: 'Recent logs of a service.', args: { service: 'string' } },
      read_config: { description: 'The deployment config of a service.', args: { service: 'string' } },
      restart: { description: 'Restart a service.', args: { service: 'string' } },
    },
    turns: [
      turn('Checkout latency is up. Find out why.',
        calls(metrics('checkout', 14)), calls(logs('checkout', 18)), calls(metrics('payments', 12)),
        calls(logs('payments', 22)), calls(cfg('payments', 9)), calls(ok('payments', 1)), answer(1500)),
      turn('What was the p99 before the restart?', answer(400, need('m:payments', { query: '"region":"west"' }))),
      turn('Latency is back up. Dig into the cart and inventory services.',
        calls(metrics('cart', 13)), calls(logs('cart', 16)), calls(cfg('cart', 11)), calls(metrics('inventory', 15)),
        calls(logs('inventory', 20)), calls(cfg('inventory', 10)), calls(ok('inventory', 1)), calls(metrics('checkout-2', 12)), answer(1800)),
      turn('Which error dominated the inventory logs?', answer(500, need('l:inventory', { query: 'FAIL' }))),
      turn('Did the payments config have the same pool size?', answer(400, need('c:payments', { query: 'deploypaymentsyamlFn1' }))),
      turn('Check the search and recommendations services too.',
        calls(metrics('search', 12)), calls(logs('search', 17)), calls(metrics('recs', 11)), calls(logs('recs', 19)), calls(cfg('recs', 9)), answer(1500)),
      turn('Write the incident summary.', answer(2500, need('l:checkout', { query: 'FAIL' }))),
    ],
  }
}

module.exports = { conversations: () => [giant(), medium(), mixed(), agentLoop(), parallelLoop(), alternating()] }
