// Experiments end to end on `exp local up` with the real kubectl, accelerated (intervalSeconds 1,
// a ping every second), routing through Knative Services, metrics from a provider whose values per
// version the test sets, and one run on a real Prometheus.
import t from 'tap';
import { stringify } from 'yaml';
import type { Experiment, ExperimentSpec } from '../shared/kube/resources.ts';
import { clusterProcess } from './support/control-plane.ts';
import { experiment, knativeService, metric, versionInfo } from './support/experiments.ts';
import { startMetricProvider } from './support/metric-provider.ts';
import { tempDir } from './support/processes.ts';
import { RECENT_LATENCY, startPrometheus } from './support/prometheus.ts';

const dir = tempDir('experiments');
t.teardown(dir.remove);
const provider = await startMetricProvider();
t.teardown(provider.close);
const prometheus = await startPrometheus();
t.teardown(prometheus.stop);
const cluster = await clusterProcess(['--data-dir', `${dir.path}/data`, '--ping-seconds', '1'], dir.path);
t.teardown(() => cluster.process.kill('SIGTERM'));

const NS = 'e2e';
async function apply(...objects: object[]): Promise<void> {
  const run = await cluster.kubectl(['apply', '-f', '-'], objects.map((object) => stringify(object)).join('---\n'));
  if (run.code !== 0) throw new Error(`kubectl apply failed: ${run.stderr}`);
}
async function get(name: string): Promise<Experiment> {
  return JSON.parse((await cluster.kubectl(['get', 'experiment', name, '-n', NS, '-o', 'json'])).stdout) as Experiment;
}
async function percents(service: string): Promise<number[]> {
  return JSON.parse((await cluster.kubectl(['get', 'ksvc', service, '-n', NS, '-o', 'jsonpath={.spec.traffic[*].percent}'])).stdout.trim().replace(/^/, '[').replace(/$/, ']').replace(/ /g, ','));
}
async function waitFor(name: string, jsonpath: string, value: string, timeout = 60): Promise<void> {
  const run = await cluster.kubectl(['wait', `experiment/${name}`, '-n', NS, `--for=jsonpath=${jsonpath}=${value}`, `--timeout=${timeout}s`]);
  if (run.code !== 0) throw new Error(`${name}: ${jsonpath} did not become ${value}: ${run.stderr}\n${JSON.stringify((await get(name)).status, null, 1)}`);
}
const finished = (name: string) => waitFor(name, '{.status.stage}', 'Completed');
const promoted = (name: string) => waitFor(name, '{.status.promotion.outcome}', 'Promoted');

const objective = (metricName: string, upperLimit: number | string) => ({ metric: metricName, upperLimit });
const fast = (iterationsPerLoop: number) => ({ intervalSeconds: 1, iterationsPerLoop });

await cluster.kubectl(['create', 'namespace', NS]);
// The failing candidate meets the objective for two iterations, then fails it.
provider.set('latency', { 'fail-v2': [60, 60, 150] });
provider.set('latency', { 'conf-v1': 50, 'bad-v1': 150, 'prog-v1': 90, 'prog-v2': 60, 'fail-v1': 90, 'ab-v1': 50, 'ab-v2': 60, 'fix-v1': 50, 'fix-v2': 50, 'down-v1': 50, 'one-v1': 50, 'one-v2': 50, 'two-v1': 50, 'two-v2': 50 });
provider.set('latency', { 'abn-v1': 50, 'abn-v2': 60, 'abn-v3': 500, 'abn-v4': 70 });
provider.set('revenue', { 'ab-v1': 10, 'ab-v2': 25 });
provider.set('cost', { 'abn-v1': 9, 'abn-v2': 7, 'abn-v3': 1, 'abn-v4': 8 });
provider.set('errors', { 'down-v1': 0, 'down-v2': 'fail' });
provider.set('latency', { 'down-v2': 50 });
await apply(
  metric(NS, 'latency', provider.metricSpec('latency')),
  metric(NS, 'revenue', provider.metricSpec('revenue')),
  metric(NS, 'cost', provider.metricSpec('cost')),
  metric(NS, 'errors', provider.metricSpec('errors')),
  metric(NS, 'prometheus-latency', {
    provider: 'prometheus',
    urlTemplate: `${prometheus.url}/api/v1/query`,
    // The backfilled series end before the test starts: a fixed window, not the run's few seconds.
    params: [{ name: 'query', value: 'max_over_time(app_request_latency_ms{revision="$revision"}[10m])' }],
    jqExpression: '.data.result[0].value[1] | tonumber',
  }),
);
for (const [name, revisions, weights] of [
  ['prog', ['prog-v1', 'prog-v2']],
  ['fail', ['fail-v1', 'fail-v2']],
  ['ab', ['ab-v1', 'ab-v2']],
  ['abn', ['abn-v1', 'abn-v2', 'abn-v3', 'abn-v4']],
  ['fix', ['fix-v1', 'fix-v2'], [70, 30]],
  ['down', ['down-v1', 'down-v2']],
  ['shared', ['one-v1', 'one-v2']],
  ['prom', ['prom-v1', 'prom-v2']],
] as [string, string[], number[]?][]) {
  await apply(knativeService(NS, name, revisions, weights));
}

const canary = (service: string, revisions: string[], extra: Partial<ExperimentSpec> = {}): ExperimentSpec => ({
  target: `${NS}/${service}`,
  versionInfo: versionInfo(service, revisions),
  strategy: { testingPattern: 'Canary' },
  criteria: { objectives: [objective('latency', 100)] },
  duration: fast(3),
  ...extra,
});

await apply(
  experiment(NS, 'conformance-ok', { target: `${NS}/conf`, versionInfo: { baseline: { name: 'conf-v1' } }, strategy: { testingPattern: 'Conformance' }, criteria: { objectives: [objective('latency', 100)] }, duration: fast(2) }),
  experiment(NS, 'conformance-bad', { target: `${NS}/bad`, versionInfo: { baseline: { name: 'bad-v1' } }, strategy: { testingPattern: 'Conformance' }, criteria: { objectives: [objective('latency', 100)] }, duration: fast(2) }),
  experiment(NS, 'progressive', canary('prog', ['prog-v1', 'prog-v2'], { strategy: { testingPattern: 'Canary', weights: { maxCandidateWeight: 60, maxCandidateWeightIncrement: 20 } }, duration: fast(5) })),
  experiment(NS, 'failing', canary('fail', ['fail-v1', 'fail-v2'], { strategy: { testingPattern: 'Canary', weights: { maxCandidateWeightIncrement: 20 } }, duration: fast(10) })),
  experiment(NS, 'ab', { ...canary('ab', ['ab-v1', 'ab-v2']), strategy: { testingPattern: 'A/B' }, criteria: { objectives: [objective('latency', 100)], rewards: [{ metric: 'revenue', preferredDirection: 'High' }] } }),
  experiment(NS, 'abn', {
    ...canary('abn', ['abn-v1', 'abn-v2', 'abn-v3', 'abn-v4']),
    strategy: { testingPattern: 'A/B/n' },
    criteria: { objectives: [objective('latency', '100')], rewards: [{ metric: 'cost', preferredDirection: 'Low' }], indicators: ['revenue'] },
  }),
  experiment(NS, 'fixed', canary('fix', ['fix-v1', 'fix-v2'], { strategy: { testingPattern: 'Canary', deploymentPattern: 'FixedSplit' } })),
  experiment(NS, 'provider-down', canary('down', ['down-v1', 'down-v2'], { criteria: { objectives: [objective('latency', 100), objective('errors', '10m')] } })),
);
const invalid = (name: string, spec: ExperimentSpec) => experiment(NS, name, spec);
await apply(
  invalid('wrong-versions', { ...canary('inv1', ['x-v1', 'x-v2']), versionInfo: { baseline: { name: 'x-v1' } } }),
  invalid('missing-metric', { ...canary('prog', ['x-v1', 'x-v2']), target: `${NS}/inv2`, criteria: { objectives: [objective('no-such-metric', 1)] } }),
  invalid('bad-fieldpath', { ...canary('prog', ['x-v1', 'x-v2']), target: `${NS}/inv3`, versionInfo: { ...versionInfo('prog', ['x-v1', 'x-v2']), candidates: [{ name: 'x-v2', weightObjRef: { apiVersion: 'serving.knative.dev/v1', kind: 'Service', name: 'prog', fieldPath: '.spec.traffic[7].percent' } }] } }),
);
const prometheusVersions = (spec: ExperimentSpec): ExperimentSpec => ({
  ...spec,
  versionInfo: {
    baseline: { ...spec.versionInfo.baseline, variables: [{ name: 'revision', value: 'v1' }] },
    candidates: [{ ...spec.versionInfo.candidates![0], variables: [{ name: 'revision', value: 'v2' }] }],
  },
});
await apply(experiment(NS, 'prometheus', prometheusVersions(canary('prom', ['prom-v1', 'prom-v2'], { criteria: { objectives: [objective('prometheus-latency', 50)] } }))));
await apply(experiment(NS, 'first-on-target', canary('shared', ['one-v1', 'one-v2'], { duration: fast(6) })));
await waitFor('first-on-target', '{.status.stage}', 'Running', 30);
await apply(experiment(NS, 'second-on-target', canary('shared', ['one-v1', 'one-v2'], { duration: fast(2) })));
await waitFor('second-on-target', '{.status.stage}', 'Waiting', 30);
const secondWhileFirstRuns = (await get('second-on-target')).status!;

t.test('conformance: a feasible version wins; an infeasible one does not', async (t) => {
  await Promise.all([finished('conformance-ok'), finished('conformance-bad')]);
  t.match((await get('conformance-ok')).status, { completedIterations: 2, versionRecommendedForPromotion: 'conf-v1', analysis: { winnerAssessment: { data: { winnerFound: true, winner: 'conf-v1' } } } });
  const bad = (await get('conformance-bad')).status!;
  t.match(bad.analysis!.winnerAssessment!.data, { winnerFound: false, bestVersions: [] });
  t.same(bad.analysis!.versionAssessments!.data, { 'bad-v1': [false] });
});

t.test('canary, progressive: the candidate rises by at most the increment, never past the maximum, then is promoted', async (t) => {
  await promoted('progressive');
  const status = (await get('progressive')).status!;
  const candidate = status.weightHistory!.map((entry) => entry.weights.find((weight) => weight.name === 'prog-v2')!.value);
  t.same(candidate, [20, 40, 60, 60, 60]);
  t.match(status, { stage: 'Completed', completedIterations: 5, message: 'Promoted: all traffic to prog-v2', versionRecommendedForPromotion: 'prog-v2', promotion: { version: 'prog-v2', outcome: 'Promoted' } });
  t.equal(status.analysis!.winnerAssessment!.data!.winner, 'prog-v2');
  t.same(await percents('prog'), [0, 100], 'the routing object ends with all traffic on the candidate');
});

t.test('canary: a candidate that fails an objective drops to 0 at once, and the baseline wins and is promoted', async (t) => {
  await promoted('failing');
  const status = (await get('failing')).status!;
  const candidate = status.weightHistory!.map((entry) => entry.weights.find((weight) => weight.name === 'fail-v2')!.value);
  // Duplicate deliveries may fetch the metric once more, so the fall may come an iteration early.
  const drop = candidate.indexOf(0);
  t.ok(drop >= 1, `it rose first: ${candidate.join(' ')}`);
  t.same(candidate.slice(0, drop), Array.from({ length: drop }, (_, index) => 20 * (index + 1)), 'by 20 an iteration while feasible');
  t.ok(candidate.slice(drop).every((value) => value === 0), 'then fell to 0 in one step and stayed there');
  t.match(status, { versionRecommendedForPromotion: 'fail-v1', promotion: { version: 'fail-v1', outcome: 'Promoted' }, analysis: { winnerAssessment: { data: { winner: 'fail-v1' } } } });
  t.same(await percents('fail'), [100, 0]);
});

t.test('A/B with a reward (High), and A/B/n with a reward (Low) and an infeasible version: the expected winners', async (t) => {
  await Promise.all([finished('ab'), finished('abn')]);
  t.equal((await get('ab')).status!.analysis!.winnerAssessment!.data!.winner, 'ab-v2');
  const abn = (await get('abn')).status!;
  t.same(abn.analysis!.versionAssessments!.data, { 'abn-v1': [true], 'abn-v2': [true], 'abn-v3': [false], 'abn-v4': [true] });
  t.match(abn.analysis!.winnerAssessment!.data, { winnerFound: true, winner: 'abn-v2', bestVersions: ['abn-v2'] }, 'the cheapest feasible version; abn-v3 is cheaper but infeasible');
  t.match(abn.analysis?.aggregatedMetrics?.data?.revenue?.data, { 'abn-v1': { unavailable: /^HTTP 404 / } }, 'indicators are fetched and shown');
});

t.test('FixedSplit: the routing object keeps the user\'s weights', async (t) => {
  await waitFor('fixed', '{.status.promotion.outcome}', 'NotPromoted');
  const status = (await get('fixed')).status!;
  t.ok(status.weightHistory!.every((entry) => entry.weights[0].value === 70 && entry.weights[1].value === 30), 'every iteration saw 70/30');
  t.same(await percents('fix'), [70, 30]);
  t.equal(status.message, 'Completed: fix-v2 is recommended; FixedSplit leaves traffic as set');
});

t.test('a provider that fails for one version: the reason in the status, and the run completes', async (t) => {
  await promoted('provider-down');
  const status = (await get('provider-down')).status!;
  t.match(status.analysis?.aggregatedMetrics?.data?.errors?.data?.['down-v2'], { unavailable: /^HTTP 503 from 127\.0\.0\.1:\d+: \{"error":"backend unavailable"\}$/ });
  t.same(status.analysis!.versionAssessments!.data!['down-v2'], [true, false]);
  t.match(status, { completedIterations: 3, versionRecommendedForPromotion: 'down-v1' });
});

t.test('invalid experiments fail with reasons', async (t) => {
  await Promise.all(['wrong-versions', 'missing-metric', 'bad-fieldpath'].map((name) => waitFor(name, '{.status.stage}', 'Failed', 30)));
  t.equal((await get('wrong-versions')).status!.message, 'Failed: testing pattern Canary needs exactly 2 versions (a baseline and 1 candidate); this experiment has 1');
  t.equal((await get('missing-metric')).status!.message, 'Failed: Metric e2e/no-such-metric does not exist; create it, then apply the Experiment again');
  t.equal((await get('bad-fieldpath')).status!.message, 'Failed: version x-v2: Service e2e/prog has no .spec.traffic[7] (fieldPath .spec.traffic[7].percent)');
  t.match((await get('bad-fieldpath')).status!.conditions, [{ type: 'ExperimentFailed', status: 'True', reason: 'InvalidWeightObjRef' }]);
});

t.test('two experiments on one target: the second waits, then runs', async (t) => {
  t.match(secondWhileFirstRuns, { stage: 'Waiting', message: `Waiting: experiment ${NS}/first-on-target holds target ${NS}/shared; this one starts when it finishes` });
  await finished('first-on-target');
  await finished('second-on-target');
  const [first, second] = [(await get('first-on-target')).status!, (await get('second-on-target')).status!];
  t.ok(Date.parse(second.startTime!) >= Date.parse(first.lastIterationTime!), 'it started after the first one finished');
});

t.test('a run on a real Prometheus: per-version series, the candidate wins', async (t) => {
  await promoted('prometheus');
  const status = (await get('prometheus')).status!;
  t.match(status.analysis?.aggregatedMetrics?.data?.['prometheus-latency']?.data, { 'prom-v1': { value: RECENT_LATENCY.v1 }, 'prom-v2': { value: RECENT_LATENCY.v2 } });
  t.equal(status.versionRecommendedForPromotion, 'prom-v2');
});

t.test('kubectl get experiments shows the six columns; describe shows the Events', async (t) => {
  const lines = (await cluster.kubectl(['get', 'experiments', '-n', NS])).stdout.trimEnd().split('\n');
  t.match(lines[0], /^NAME\s+TYPE\s+TARGET\s+STAGE\s+COMPLETED ITERATIONS\s+MESSAGE$/);
  t.match(lines.find((line) => line.startsWith('progressive ')), /^progressive\s+Canary\s+e2e\/prog\s+Completed\s+5\s+Promoted: all traffic to prog-v2$/);
  t.match(lines.find((line) => line.startsWith('abn ')), /^abn\s+A\/B\/n\s+e2e\/abn\s+Completed\s+3\s+Promoted: all traffic to abn-v2$/);
  t.match(lines.find((line) => line.startsWith('wrong-versions ')), /^wrong-versions\s+Canary\s+e2e\/inv1\s+Failed\s+0\s+Failed: testing pattern Canary needs/);
  const described = (await cluster.kubectl(['describe', 'experiment', 'progressive', '-n', NS])).stdout;
  const events = described.slice(described.indexOf('Events:'));
  for (const [reason, message] of [
    ['Started', 'Canary Progressive experiment started: 5 iterations, every 1s'],
    ['WinnerFound', 'winner found: prog-v2'],
    ['Completed', 'completed 5 iterations; prog-v2 is recommended for promotion'],
    ['Promoted', 'Promoted: all traffic to prog-v2'],
  ]) {
    t.match(events, new RegExp(`Normal\\s+${reason}\\s+\\S+\\s+\\S+\\s+${message}`), reason);
  }
});
