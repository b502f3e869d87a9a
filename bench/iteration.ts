// Benchmark of iteration-tick (npm run bench:iteration): the time one tick takes, from the ping to
// every due experiment's iteration counted, for 10, 100 and 1,000 Running experiments, each with 3
// versions and 4 metrics, against a loopback provider that answers after 5 ms, on the local
// control plane (`exp local up --api-server-only`, its own process). Reports memory across ticks.
import { spawn } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { createInterface } from 'node:readline';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { pino } from 'pino';
import type { Event } from '../shared/events/cloudevent-http.ts';
import { engineDeps } from '../shared/experiment/engine-from-env.ts';
import type { EngineDeps } from '../shared/experiment/engine.ts';
import { runIteration } from '../shared/experiment/run-iteration.ts';
import { startExperiment } from '../shared/experiment/start-experiment.ts';
import { tick } from '../shared/experiment/tick.ts';
import { clusterProcess } from '../test/support/control-plane.ts';
import { tempDir } from '../test/support/processes.ts';
import { experiment, knativeService, metric, versionInfo } from '../test/support/experiments.ts';

const SIZES = (process.env.SIZES ?? '10,100,1000').split(',').map(Number);
const TICKS = Number(process.env.TICKS ?? 4);

async function firstLine(child: ReturnType<typeof spawn>): Promise<string> {
  const { value } = await createInterface({ input: child.stdout! })[Symbol.asyncIterator]().next();
  return String(value).trim();
}

const dir = tempDir('bench-iteration');
const provider = spawn(process.execPath, [new URL('./slow-provider-server.ts', import.meta.url).pathname, '5'], { stdio: ['ignore', 'pipe', 'inherit'] });
const providerUrl = `http://127.0.0.1:${await firstLine(provider)}`;
const cluster = await clusterProcess(['--api-server-only'], dir.path);
await cluster.kubectl(['apply', '-f', 'crds/']);
const admin = cluster.config().makeApiClient(CustomObjectsApi);
const core = cluster.config().makeApiClient(CoreV1Api);

const { deps: base, close } = engineDeps('bench', pino({ level: 'warn' }), cluster.config('exp-analytics'));
let clock = new Date();
const due: Event[] = [];
const deps: EngineDeps = { ...base, emit: async (event) => void (event.type === 'dev.exp.experiment.iteration.due' && due.push(event)), recordEvent: async () => {}, now: () => clock };

async function createExperiments(namespace: string, count: number): Promise<void> {
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  for (const name of ['m1', 'm2', 'm3', 'm4']) {
    const spec = { urlTemplate: `${providerUrl}/value`, params: [{ name: 'metric', value: name }, { name: 'version', value: '$name' }], jqExpression: '.value' };
    await admin.createNamespacedCustomObject({ group: 'exp.dev', version: 'v1alpha1', namespace, plural: 'metrics', body: metric(namespace, name, spec) });
  }
  const create = async (index: number) => {
    const revisions = [`e${index}-v1`, `e${index}-v2`, `e${index}-v3`];
    await admin.createNamespacedCustomObject({ group: 'serving.knative.dev', version: 'v1', namespace, plural: 'services', body: knativeService(namespace, `svc-${index}`, revisions) });
    const spec = {
      target: `${namespace}/svc-${index}`,
      versionInfo: versionInfo(`svc-${index}`, revisions),
      strategy: { testingPattern: 'A/B/n' as const },
      criteria: { objectives: [{ metric: 'm1', upperLimit: 100 }, { metric: 'm2', upperLimit: 100 }], rewards: [{ metric: 'm3', preferredDirection: 'High' as const }], indicators: ['m4'] },
      duration: { intervalSeconds: 1, iterationsPerLoop: 100 },
    };
    await admin.createNamespacedCustomObject({ group: 'exp.dev', version: 'v1alpha1', namespace, plural: 'experiments', body: experiment(namespace, `exp-${index}`, spec) });
    await startExperiment({ namespace, name: `exp-${index}` }, deps);
  };
  for (let start = 0; start < count; start += 50) await Promise.all(Array.from({ length: Math.min(50, count - start) }, (_, offset) => create(start + offset)));
}

/** One tick: the ping's list and due events, then every due iteration, as concurrent deliveries. */
async function oneTick(namespace: string, count: number): Promise<number> {
  clock = new Date(clock.getTime() + 1500);
  due.length = 0;
  const started = performance.now();
  await tick(deps);
  const mine = due.filter((event) => event.subject?.startsWith(`${namespace}/`));
  const results = await Promise.all(mine.map((event) => runIteration({ namespace, name: (event.data as { name: string }).name }, (event.data as { iteration: number }).iteration, deps)));
  const elapsed = (performance.now() - started) / 1000;
  const counted = results.filter((result) => result === 'counted').length;
  if (counted !== count) throw new Error(`${namespace}: ${counted} of ${count} iterations counted`);
  return elapsed;
}

const rows = [];
for (const size of SIZES) {
  const namespace = `bench-${size}`;
  await createExperiments(namespace, size);
  const seconds: number[] = [];
  const heap: number[] = [];
  for (let i = 0; i < TICKS; i++) {
    seconds.push(await oneTick(namespace, size));
    global.gc?.();
    heap.push(process.memoryUsage().heapUsed / 2 ** 20);
  }
  rows.push({ size, seconds, heap, rss: process.memoryUsage().rss / 2 ** 20 });
  await core.deleteNamespace({ name: namespace });
}

const [cpu] = cpus();
console.log(`Machine: ${cpus().length} x ${cpu.model.trim()}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; provider delay 5 ms; ${TICKS} ticks per size`);
console.log('');
console.log('| Running experiments | metric queries per tick | tick (best) | tick (worst) | heap after each tick (MiB) |');
console.log('|---:|---:|---:|---:|---|');
for (const row of rows) {
  console.log(`| ${row.size} | ${row.size * 12} | ${Math.min(...row.seconds).toFixed(2)} s | ${Math.max(...row.seconds).toFixed(2)} s | ${row.heap.map((mib) => mib.toFixed(0)).join(', ')} |`);
}
await close();
cluster.process.kill('SIGTERM');
provider.kill();
dir.remove();
