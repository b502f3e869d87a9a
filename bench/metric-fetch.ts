// Benchmark of the metric-fetch module (npm run bench:metric-fetch):
//  (a) time per extraction for the seed providers' jq expressions: the in-process evaluator (as the
//      module uses it, through the worker pool; and one instance called directly), and node-jq
//      running Debian's jq binary (JQ_PATH, default /usr/bin/jq) as the baseline, in the same run;
//  (b) queries per second of fetchMetric against a loopback Prometheus-shaped server, 100 in flight.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { createInterface } from 'node:readline';
import { pino } from 'pino';
import { fetchMetric } from '../shared/metrics/fetch-metric.ts';
import { JqPool } from '../shared/metrics/jq/jq-pool.ts';
import { JqRuntime } from '../shared/metrics/jq/jq-runtime.ts';

const JQ_PATH = (process.env.JQ_PATH ??= '/usr/bin/jq');
const { default: nodeJq } = await import('node-jq');

const SEED_EXTRACTIONS = [
  {
    provider: 'prometheus',
    expression: '.data.result[0].value[1] | tonumber',
    reply: { status: 'success', data: { resultType: 'vector', result: [{ metric: { revision: 'v1' }, value: [1700000000.123, '42.5'] }] } },
  },
  { provider: 'newrelic', expression: '.results[0].count', reply: { results: [{ count: 1523 }], metadata: { eventTypes: ['Transaction'] } } },
  { provider: 'sysdig', expression: '.data[0].d[0]', reply: { data: [{ t: 1582756200, d: [6.481] }], start: 1582755600, end: 1582756200 } },
  {
    provider: 'elasticsearch',
    expression: '.aggregations.items_to_sell.avg_sales.value',
    reply: { took: 4, timed_out: false, hits: { total: { value: 120 } }, aggregations: { items_to_sell: { doc_count: 3, avg_sales: { value: 128.33 } } } },
  },
];

async function microsPerCall(calls: number, call: () => Promise<unknown> | unknown): Promise<number> {
  for (let i = 0; i < Math.min(20, calls); i++) await call();
  const started = performance.now();
  for (let i = 0; i < calls; i++) await call();
  return ((performance.now() - started) * 1000) / calls;
}

async function extractionBench() {
  const pool = new JqPool();
  const runtime = await JqRuntime.create();
  const rows = [];
  for (const { provider, expression, reply } of SEED_EXTRACTIONS) {
    const text = JSON.stringify(reply);
    const bytes = Buffer.from(text);
    const direct = await microsPerCall(20000, () => runtime.evaluate(expression, bytes));
    const pooled = await microsPerCall(5000, () => pool.evaluate(expression, bytes, Date.now() + 10000));
    const check = await nodeJq.run(expression, text, { input: 'string', output: 'json' });
    if ((check as unknown) !== (runtime.evaluate(expression, bytes) as { value: number }).value) throw new Error(`${provider}: node-jq and the evaluator disagree`);
    const spawned = await microsPerCall(200, () => nodeJq.run(expression, text, { input: 'string', output: 'json' }));
    rows.push({ provider, expression, direct, pooled, spawned, ratio: spawned / pooled });
  }
  await pool.close();
  return rows;
}

async function throughputBench(total: number, inFlight: number) {
  const server = spawn(process.execPath, [new URL('./prometheus-shaped-server.ts', import.meta.url).pathname], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [portLine] = await createInterface({ input: server.stdout! })[Symbol.asyncIterator]().next().then((r) => [r.value as string]);
  const jq = new JqPool();
  const deps = { secrets: { read: async () => ({ kind: 'unavailable' as const, reason: 'none' }) }, jq, log: pino({ level: 'warn' }) };
  const query = {
    metric: {
      namespace: 'bench',
      name: 'latency',
      spec: {
        urlTemplate: `http://127.0.0.1:${portLine.trim()}/api/v1/query`,
        params: [{ name: 'query', value: 'max_over_time(app_request_latency_ms{revision="$revision"}[${elapsedTime}s])' }],
        jqExpression: '.data.result[0].value[1] | tonumber',
      },
    },
    namespace: 'bench',
    version: { name: 'v1', variables: { revision: 'v1' } },
    elapsedSeconds: 600,
  };
  let started = 0;
  let failed = 0;
  const worker = async () => {
    while (started < total) {
      started++;
      const { result } = await fetchMetric(query, deps);
      if (result.kind !== 'value') failed++;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker)); // warm-up round
  started = 0;
  failed = 0;
  const begin = performance.now();
  await Promise.all(Array.from({ length: inFlight }, worker));
  const seconds = (performance.now() - begin) / 1000;
  await jq.close();
  server.kill();
  return { total, inFlight, seconds, qps: total / seconds, failed };
}

if (!existsSync(JQ_PATH)) {
  console.error(`node-jq needs a jq binary: install Debian's jq (apt-get install jq) or set JQ_PATH.`);
  process.exit(1);
}

const rows = await extractionBench();
const throughput = await throughputBench(20000, 100);
const [cpu] = cpus();
console.log(`Machine: ${cpus().length} x ${cpu.model.trim()}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, jq baseline ${JQ_PATH}`);
console.log('');
console.log('| provider | jq expression | in-process, direct (µs) | in-process, worker pool (µs) | node-jq + Debian jq (µs) | pool vs node-jq |');
console.log('|---|---|---:|---:|---:|---:|');
for (const row of rows) {
  console.log(`| ${row.provider} | \`${row.expression.replaceAll('|', '\\|')}\` | ${row.direct.toFixed(1)} | ${row.pooled.toFixed(1)} | ${row.spawned.toFixed(0)} | ${row.ratio.toFixed(0)}x faster |`);
}
console.log('');
console.log(
  `End to end: ${throughput.total} queries, ${throughput.inFlight} in flight: ${throughput.seconds.toFixed(2)} s, ` +
    `${Math.round(throughput.qps)} queries/s, ${throughput.failed} failed`,
);
