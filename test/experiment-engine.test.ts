// The engine against the local API server, handlers called directly: the start, iterations under
// duplicate and concurrent delivery, traffic failures, and the tick's repairs.
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import t from 'tap';
import { pino } from 'pino';
import type { Event } from '../shared/events/cloudevent-http.ts';
import { engineDeps } from '../shared/experiment/engine-from-env.ts';
import type { EngineDeps } from '../shared/experiment/engine.ts';
import { promoteWinner } from '../shared/experiment/promote-winner.ts';
import { runIteration } from '../shared/experiment/run-iteration.ts';
import { startExperiment } from '../shared/experiment/start-experiment.ts';
import { tick } from '../shared/experiment/tick.ts';
import type { Experiment } from '../shared/kube/resources.ts';
import { localCluster } from './support/control-plane.ts';
import { experiment, knativeService, metric, versionInfo } from './support/experiments.ts';
import { startMetricProvider } from './support/metric-provider.ts';

const cluster = await localCluster(t);
await cluster.kubectl(['apply', '-f', 'crds/']);
await cluster.kubectl(['create', 'namespace', 'shop']);
const provider = await startMetricProvider();
t.teardown(provider.close);
const admin = cluster.config().makeApiClient(CustomObjectsApi);
const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const emitted: Event[] = [];
let clock = new Date();
const { deps: base, close } = engineDeps('tests', pino({ level: 'silent' }), cluster.config('exp-analytics'));
t.teardown(close);
const deps: EngineDeps = { ...base, emit: async (event) => void emitted.push(event), now: () => clock };

const crd = (plural: string) => ({ group: plural === 'services' ? 'serving.knative.dev' : 'exp.dev', version: plural === 'services' ? 'v1' : 'v1alpha1', namespace: 'shop', plural });
const create = (plural: string, body: object) => admin.createNamespacedCustomObject({ ...crd(plural), body });
const get = async (name: string) => (await admin.getNamespacedCustomObject({ ...crd('experiments'), name })) as Experiment;
const percents = async (service: string) => ((await admin.getNamespacedCustomObject({ ...crd('services'), name: service })) as { spec: { traffic: { percent: number }[] } }).spec.traffic.map((entry) => entry.percent);
const later = (seconds: number) => (clock = new Date(clock.getTime() + seconds * 1000));

await create('metrics', metric('shop', 'latency', provider.metricSpec('latency')));
provider.set('latency', { 'app-v1': 120, 'app-v2': 80, 'other-v1': 10, 'other-v2': 10 });

const canary = (name: string, service: string, revisions: string[], iterations = 3) =>
  experiment('shop', name, {
    target: `shop/${service}`,
    versionInfo: versionInfo(service, revisions),
    strategy: { testingPattern: 'Canary', weights: { maxCandidateWeight: 100, maxCandidateWeightIncrement: 25 } },
    criteria: { objectives: [{ metric: 'latency', upperLimit: 100 }] },
    duration: { intervalSeconds: 10, iterationsPerLoop: iterations },
  });

t.test('start: validated, the spec and Metrics captured, traffic at the baseline, running', async (t) => {
  await create('services', knativeService('shop', 'app', ['app-v1', 'app-v2'], [60, 40]));
  await create('experiments', canary('app-canary', 'app', ['app-v1', 'app-v2']));
  t.equal(await startExperiment({ namespace: 'shop', name: 'app-canary' }, deps), 'started');
  const started = await get('app-canary');
  t.match(started.status, { stage: 'Running', observedGeneration: 1, completedIterations: 0, currentWeightDistribution: [{ name: 'app-v1', value: 100 }, { name: 'app-v2', value: 0 }] });
  t.same(Object.keys((started.status!.runSpec as { metrics: object }).metrics), ['latency']);
  t.same(await percents('app'), [100, 0]);
  t.equal(await startExperiment({ namespace: 'shop', name: 'app-canary' }, deps), 'unchanged', 'a duplicate delivery changes nothing');
  const events = await cluster.config().makeApiClient(CoreV1Api).listNamespacedEvent({ namespace: 'shop', fieldSelector: 'involvedObject.name=app-canary' });
  t.same(events.items.map((event) => event.reason), ['Started']);
});

t.test('iteration: duplicate and concurrent deliveries count it once, and traffic moves one step', async (t) => {
  const ref = { namespace: 'shop', name: 'app-canary' };
  const results = await Promise.all([runIteration(ref, 1, deps), runIteration(ref, 1, deps), runIteration(ref, 1, deps)]);
  t.same(results.filter((result) => result === 'counted'), ['counted'], `one counted among ${results.join(', ')}`);
  t.equal(await runIteration(ref, 1, deps), 'not-due', 'a late duplicate is not due any more');
  const after = await get('app-canary');
  t.equal(after.status!.completedIterations, 1);
  t.equal(after.status!.message, 'IterationUpdate: Completed Iteration 1');
  t.same(await percents('app'), [75, 25]);
  t.match(after.status!.analysis, {
    aggregatedMetrics: { data: { latency: { data: { 'app-v1': { value: 120 }, 'app-v2': { value: 80 } } } } },
    versionAssessments: { objectives: ['latency <= 100'], data: { 'app-v1': [false], 'app-v2': [true] } },
    winnerAssessment: { data: { winnerFound: true, winner: 'app-v2', bestVersions: ['app-v2'] } },
    weights: { data: [{ name: 'app-v1', value: 75 }, { name: 'app-v2', value: 25 }] },
  });
  t.equal(await runIteration(ref, 2, deps), 'not-due', 'the next one waits intervalSeconds');
});

t.test('iteration: the run measures the Metric as it was at the start', async (t) => {
  await admin.patchNamespacedCustomObject({ ...crd('metrics'), name: 'latency', body: { spec: { urlTemplate: 'http://127.0.0.1:1/broken' } } }, merge);
  later(10);
  t.equal(await runIteration({ namespace: 'shop', name: 'app-canary' }, 2, deps), 'counted');
  t.match((await get('app-canary')).status?.analysis?.aggregatedMetrics?.data?.latency?.data?.['app-v2'], { value: 80 });
  await admin.patchNamespacedCustomObject({ ...crd('metrics'), name: 'latency', body: { spec: provider.metricSpec('latency') } }, merge);
});

t.test('iteration: a routing object that cannot be patched shows in the status, and a later iteration retries', async (t) => {
  const service = (await admin.getNamespacedCustomObject({ ...crd('services'), name: 'app' })) as object;
  await admin.deleteNamespacedCustomObject({ ...crd('services'), name: 'app' });
  later(10);
  t.equal(await runIteration({ namespace: 'shop', name: 'app-canary' }, 3, deps), 'counted', 'the iteration still counts');
  const after = await get('app-canary');
  t.match(after.status!.conditions!.find((condition) => condition.type === 'TrafficApplied'), {
    status: 'False',
    reason: 'RoutingPatchFailed',
    message: 'version app-v1: Service shop/app does not exist; retried at the next iteration',
  });
  t.equal(after.status!.stage, 'Completed');
  await create('services', { ...service, metadata: { name: 'app', namespace: 'shop' } });
  t.equal(await promoteWinner({ namespace: 'shop', name: 'app-canary' }, deps), 'promoted', 'promotion retries the traffic');
  t.same(await percents('app'), [0, 100]);
  t.equal(await promoteWinner({ namespace: 'shop', name: 'app-canary' }, deps), 'already', 'running it twice changes nothing more');
  t.match((await get('app-canary')).status!.promotion, { version: 'app-v2', outcome: 'Promoted' });
});

t.test('tick: starts what no event started, sends due iterations, resends a lost completed event', async (t) => {
  await create('services', knativeService('shop', 'other', ['other-v1', 'other-v2']));
  await create('experiments', canary('missed', 'other', ['other-v1', 'other-v2'], 1));
  emitted.length = 0;
  t.match(await tick(deps), { started: 1 }, 'an experiment created while the event plane was down');
  t.equal((await get('missed')).status!.stage, 'Running');
  t.match(await tick(deps), { due: 1 });
  t.same(emitted.map((event) => [event.type, event.subject, (event.data as { iteration: number }).iteration]), [['dev.exp.experiment.iteration.due', 'shop/missed', 1]]);
  t.equal(await runIteration({ namespace: 'shop', name: 'missed' }, 1, deps), 'counted');
  emitted.length = 0;
  t.match(await tick(deps), { repromoted: 1 }, 'completed, no promotion recorded: the completed event again');
  t.same(emitted.map((event) => event.type), ['dev.exp.experiment.completed']);
});

t.test('tick: two ticks at once send due events twice, and the iteration still counts once', async (t) => {
  await create('services', knativeService('shop', 'twice', ['app-v1', 'app-v2']));
  await create('experiments', canary('twice', 'twice', ['app-v1', 'app-v2'], 2));
  await startExperiment({ namespace: 'shop', name: 'twice' }, deps);
  emitted.length = 0;
  await Promise.all([tick(deps), tick(deps)]);
  const due = emitted.filter((event) => event.subject === 'shop/twice');
  t.equal(due.length, 2);
  const results = await Promise.all(due.map((event) => runIteration({ namespace: 'shop', name: 'twice' }, (event.data as { iteration: number }).iteration, deps)));
  t.equal(results.filter((result) => result === 'counted').length, 1);
  t.equal((await get('twice')).status!.completedIterations, 1);
  t.same(await percents('twice'), [75, 25], 'one step');
});
