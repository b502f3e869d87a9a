// The experiment's rules that need no cluster: validation of the spec, scheduling, the target
// lock, the status through its stages, and fieldPaths.
import t from 'tap';
import type { Experiment, ExperimentSpec } from '../shared/kube/resources.ts';
import { checkResource } from '../shared/kube/crds.ts';
import { formatFieldError } from '../shared/kube/crd-schema.ts';
import { metricKeys, testingPattern, totalIterations } from '../shared/experiment/experiment.ts';
import { dueIteration, targetHolder } from '../shared/experiment/schedule.ts';
import { failedStatus, initializingStatus, iterationStatus, runningStatus, WEIGHT_HISTORY_SIZE } from '../shared/experiment/status.ts';
import { specProblems } from '../shared/experiment/validate-experiment.ts';
import { jsonPointer, parseFieldPath, valueAt } from '../shared/traffic/field-path.ts';

const ref = (index: number) => ({ apiVersion: 'serving.knative.dev/v1', kind: 'Service', name: 'shop', fieldPath: `.spec.traffic[${index}].percent` });
const spec = (extra: Partial<ExperimentSpec> = {}): ExperimentSpec => ({
  target: 'shop/shop',
  versionInfo: { baseline: { name: 'v1', weightObjRef: ref(0) }, candidates: [{ name: 'v2', weightObjRef: ref(1) }] },
  strategy: { testingPattern: 'Canary' },
  criteria: { objectives: [{ metric: 'latency', upperLimit: '500m' }], rewards: [{ metric: 'other/revenue', preferredDirection: 'High' }], requestCount: 'requests', indicators: ['latency', 'cpu'] },
  duration: { intervalSeconds: 10, iterationsPerLoop: 3, maxLoops: 2 },
  ...extra,
});

t.test('experiment CRD: defaults, and the printer columns', async (t) => {
  const checked = checkResource('experiment.yaml', {
    apiVersion: 'exp.dev/v1alpha1',
    kind: 'Experiment',
    metadata: { name: 'e', namespace: 'shop' },
    spec: { target: 't', versionInfo: { baseline: { name: 'v1' } }, strategy: { testingPattern: 'Conformance' }, criteria: { objectives: [{ metric: 'm', upperLimit: 0.5 }, { metric: 'n', lowerLimit: '10' }] } },
  });
  t.same(checked.errors.map(formatFieldError), []);
  t.same(checked.object.spec.strategy, { testingPattern: 'Conformance', deploymentPattern: 'Progressive', weights: { maxCandidateWeight: 100, maxCandidateWeightIncrement: 10 } });
  t.same(checked.object.spec.duration, { intervalSeconds: 20, iterationsPerLoop: 15, maxLoops: 1 });
  const bad = checkResource('experiment.yaml', {
    apiVersion: 'exp.dev/v1alpha1',
    kind: 'Experiment',
    metadata: { name: 'e' },
    spec: { target: 't', versionInfo: { baseline: { name: 'v1', weightObjRef: { ...ref(0), fieldPath: 'spec/traffic' } } }, strategy: { testingPattern: 'A/B/C', weights: { maxCandidateWeight: 120 } } },
  });
  t.same(bad.errors.map(formatFieldError).sort(), [
    `spec.strategy.testingPattern: Unsupported value: "A/B/C": supported values: "Conformance", "Canary", "A/B", "A/B/n", "A/B/N"`,
    `spec.strategy.weights.maxCandidateWeight: Invalid value: 120: spec.strategy.weights.maxCandidateWeight in body should be less than or equal to 100`,
    `spec.versionInfo.baseline.weightObjRef.fieldPath: Invalid value: "spec/traffic": spec.versionInfo.baseline.weightObjRef.fieldPath in body should match '^(\\.[A-Za-z0-9_-]+|\\[\\d+\\])+$'`,
  ]);
});

t.test('spec: the versions against the testing pattern, unique names, limits, weightObjRefs', async (t) => {
  const reasons = (value: ExperimentSpec) => specProblems(value).map((problem) => `${problem.reason}: ${problem.message}`);
  t.same(reasons(spec()), []);
  t.same(reasons(spec({ strategy: { testingPattern: 'Conformance' } })), ['InvalidVersions: testing pattern Conformance needs exactly 1 version (a baseline, no candidates); this experiment has 2']);
  t.same(reasons(spec({ strategy: { testingPattern: 'A/B/N' } })), ['InvalidVersions: testing pattern A/B/n needs more than 2 versions (a baseline and at least 2 candidates); this experiment has 2']);
  t.same(reasons(spec({ versionInfo: { baseline: { name: 'v1', weightObjRef: ref(0) }, candidates: [{ name: 'v1', weightObjRef: ref(1) }] } })), ['InvalidVersions: version names must be unique; repeated: v1']);
  t.same(reasons(spec({ criteria: { objectives: [{ metric: 'latency', upperLimit: 'fast' }, { metric: 'errors' }] } })), [
    'InvalidObjective: criteria.objectives[0].upperLimit must be a number or a quantity such as "500m", not "fast"',
    'InvalidObjective: criteria.objectives[1] (errors) needs an upperLimit or a lowerLimit',
  ]);
  t.same(reasons(spec({ versionInfo: { baseline: { name: 'v1' }, candidates: [{ name: 'v2' }] } })), [
    'InvalidWeightObjRef: Progressive moves traffic through weightObjRef: at most one version may omit it (its weight is 100 minus the others); v1, v2 do',
  ]);
  t.same(reasons(spec({ versionInfo: { baseline: { name: 'v1' }, candidates: [{ name: 'v2' }] }, strategy: { testingPattern: 'Canary', deploymentPattern: 'FixedSplit' } })), [], 'FixedSplit needs none');
  t.same(reasons(spec({ versionInfo: { baseline: { name: 'v1' }, candidates: [{ name: 'v2', weightObjRef: ref(1) }] } })), [], 'one version may omit it');
});

t.test('spec: metrics are fetched once each, keyed by name in the experiment namespace', async (t) => {
  t.same(metricKeys(spec(), 'shop'), ['latency', 'other/revenue', 'requests', 'cpu']);
  t.same(metricKeys(spec({ criteria: { objectives: [{ metric: 'shop/latency', upperLimit: 1 }], indicators: ['latency'] } }), 'shop'), ['latency']);
  t.equal(totalIterations(spec()), 6);
  t.equal(testingPattern(spec({ strategy: { testingPattern: 'A/B/N' } })), 'A/B/n');
});

const running = (completedIterations: number, startTime: string, lastIterationTime?: string): Experiment =>
  ({ apiVersion: 'exp.dev/v1alpha1', kind: 'Experiment', metadata: { name: 'e', namespace: 'shop' }, spec: spec(), status: { stage: 'Running', startTime, completedIterations, lastIterationTime } }) as Experiment;

t.test('schedule: the first iteration at once, then every intervalSeconds, up to the total', async (t) => {
  const start = '2026-01-01T00:00:00Z';
  const at = (seconds: number) => new Date(Date.parse(start) + seconds * 1000);
  t.equal(dueIteration(running(0, start), at(0)), 1);
  t.equal(dueIteration(running(1, start, '2026-01-01T00:00:01Z'), at(10)), undefined);
  t.equal(dueIteration(running(1, start, '2026-01-01T00:00:01Z'), at(11)), 2);
  t.equal(dueIteration(running(6, start, '2026-01-01T00:01:00Z'), at(600)), undefined, 'all iterations done');
  t.equal(dueIteration({ ...running(0, start), status: { stage: 'Waiting' } } as Experiment, at(0)), undefined);
});

t.test('target: the oldest unfinished experiment holds it', async (t) => {
  const experiment = (name: string, created: string, stage?: string, target = 'shop/shop') =>
    ({ metadata: { name, namespace: 'shop', creationTimestamp: created }, spec: { ...spec(), target }, status: stage ? { stage } : undefined }) as unknown as Experiment;
  const all = [
    experiment('newer', '2026-01-02T00:00:00Z'),
    experiment('done', '2025-12-01T00:00:00Z', 'Completed'),
    experiment('older', '2026-01-01T00:00:00Z', 'Waiting'),
    experiment('elsewhere', '2025-01-01T00:00:00Z', 'Running', 'shop/other'),
  ];
  t.equal(targetHolder('shop/shop', all)?.metadata.name, 'older');
  t.equal(targetHolder('shop/other', all)?.metadata.name, 'elsewhere');
  t.equal(targetHolder('nobody', all), undefined);
});

t.test('status: stages, conditions, the iteration message and a bounded weight history', async (t) => {
  const now = new Date('2026-01-01T00:00:00Z');
  const failed = failedStatus(undefined, 1, [{ reason: 'MetricNotFound', message: 'Metric shop/x does not exist' }], now);
  t.match(failed, { stage: 'Failed', observedGeneration: 1, message: 'Failed: Metric shop/x does not exist', conditions: [{ type: 'ExperimentFailed', status: 'True', reason: 'MetricNotFound' }] });
  let status = runningStatus(initializingStatus(undefined, 1, { experiment: spec(), metrics: {} }, now), [{ name: 'v1', value: 100 }, { name: 'v2', value: 0 }], now);
  t.match(status, { stage: 'Running', completedIterations: 0, startTime: '2026-01-01T00:00:00Z', currentWeightDistribution: [{ name: 'v1', value: 100 }] });
  for (let iteration = 1; iteration <= 12; iteration++) {
    status = iterationStatus(status, { iteration, last: iteration === 12, analysis: {}, winner: { winnerFound: true, winner: 'v2', bestVersions: ['v2'] }, recommended: 'v2', weights: [{ name: 'v1', value: 100 - iteration }, { name: 'v2', value: iteration }] }, now);
  }
  t.equal(status.message, 'IterationUpdate: Completed Iteration 12');
  t.equal(status.stage, 'Completed');
  t.equal(status.weightHistory?.length, WEIGHT_HISTORY_SIZE);
  t.equal(status.weightHistory?.[0].iteration, 3);
  t.match(status.conditions?.find((condition) => condition.type === 'ExperimentCompleted'), { status: 'True', message: 'completed 12 iterations; v2 is recommended for promotion' });
});

t.test('fieldPath: steps, pointer, and where a path stops', async (t) => {
  const steps = parseFieldPath('.spec.http[1].route[0].weight');
  t.same(steps, ['spec', 'http', 1, 'route', 0, 'weight']);
  t.equal(jsonPointer(steps), '/spec/http/1/route/0/weight');
  t.same(valueAt({ spec: { http: [{}, { route: [{ weight: 30 }] }] } }, steps), { found: true, value: 30 });
  t.same(valueAt({ spec: { http: [{}] } }, steps), { found: false, missing: '.spec.http[1]' });
  t.throws(() => parseFieldPath('spec.traffic'), /is not of the form/);
});
