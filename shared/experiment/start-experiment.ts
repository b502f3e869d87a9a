// Starting an experiment: validate it, wait for its target, capture what it will measure, set the
// initial traffic, then run. Each step is a status write with the resourceVersion it read, so
// duplicate and concurrent deliveries take each step once; a 409 means read and decide again.
import { allTo } from '../analysis/weights.ts';
import { EXPERIMENT_EVENT_TYPES } from '../events/event-types.ts';
import type { Experiment } from '../kube/resources.ts';
import { emitQuietly, experimentEvent, type EngineDeps, type ExperimentRef } from './engine.ts';
import { deploymentPattern, durationOf, totalIterations, versionsOf } from './experiment.ts';
import { targetHolder } from './schedule.ts';
import { failedStatus, initializingStatus, runningStatus, trafficFailedStatus, waitingStatus, withCondition, type RunSpec, type Status } from './status.ts';
import { referenceProblems, specProblems } from './validate-experiment.ts';

export type StartOutcome = 'started' | 'initializing' | 'waiting' | 'failed' | 'unchanged' | 'gone';

const ATTEMPTS = 5;

export async function startExperiment(ref: ExperimentRef, deps: EngineDeps): Promise<StartOutcome> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const experiment = await deps.experiments.get(ref);
    if (!experiment) return 'gone';
    const outcome = await step(experiment, deps);
    if (outcome !== 'conflict') return outcome;
  }
  throw new Error(`experiment ${ref.namespace}/${ref.name} kept changing under ${ATTEMPTS} attempts to start it`);
}

async function write(experiment: Experiment, status: Status, deps: EngineDeps): Promise<Experiment | 'conflict' | 'gone'> {
  return deps.experiments.writeStatus(experiment, status);
}

async function step(experiment: Experiment, deps: EngineDeps): Promise<StartOutcome | 'conflict'> {
  const status = experiment.status;
  const generation = experiment.metadata.generation ?? 0;
  const current = (status?.observedGeneration ?? -1) === generation;
  const now = deps.now();
  switch (status?.stage) {
    case 'Running':
    case 'Completed':
      return current ? 'unchanged' : noteSpecChange(experiment, deps);
    case 'Failed':
      if (current) return 'unchanged';
      break;
    case 'Initializing':
      if (current) return initialTraffic(experiment, deps);
  }

  const namespace = experiment.metadata.namespace!;
  let problems = specProblems(experiment.spec);
  let metrics: RunSpec['metrics'] = {};
  if (!problems.length) {
    const references = await referenceProblems(experiment.spec, namespace, {
      metric: (metricRef) => deps.metrics.get(metricRef),
      compileJq: deps.compileJq,
      routingField: (weightObjRef, defaultNamespace) => deps.routing.check(weightObjRef, defaultNamespace),
    });
    problems = references.problems;
    metrics = Object.fromEntries(Object.entries(references.metrics).map(([key, metric]) => [key, metric.spec]));
  }
  if (problems.length) {
    const written = await write(experiment, failedStatus(status, generation, problems, now), deps);
    if (typeof written === 'string') return written;
    await deps.recordEvent(written, 'Warning', 'Failed', written.status!.message!);
    await emitQuietly(deps, experimentEvent(deps, EXPERIMENT_EVENT_TYPES.failed, { namespace, name: experiment.metadata.name! }, { reason: problems[0].reason, message: written.status!.message }));
    return 'failed';
  }

  const holder = targetHolder(experiment.spec.target, await deps.experiments.list());
  if (holder && holder.metadata.uid !== experiment.metadata.uid) {
    const waiting = waitingStatus(status, generation, `${holder.metadata.namespace}/${holder.metadata.name}`, experiment.spec.target, now);
    if (status?.stage === 'Waiting' && status.message === waiting.message && status.observedGeneration === generation) return 'waiting';
    const written = await write(experiment, waiting, deps);
    return typeof written === 'string' ? written : 'waiting';
  }

  const initializing = await write(experiment, initializingStatus(status, generation, { experiment: experiment.spec, metrics }, now), deps);
  if (typeof initializing === 'string') return initializing;
  return initialTraffic(initializing, deps);
}

/** Progressive and BlueGreen start with all traffic on the baseline; FixedSplit leaves it as set. */
async function initialTraffic(experiment: Experiment, deps: EngineDeps): Promise<StartOutcome | 'conflict'> {
  const runSpec = (experiment.status!.runSpec as unknown as RunSpec).experiment;
  const versions = versionsOf(runSpec);
  const namespace = experiment.metadata.namespace!;
  const now = deps.now();
  let weights;
  if (versions.some((version) => version.weightObjRef)) {
    const result =
      deploymentPattern(runSpec) === 'FixedSplit'
        ? await deps.routing.read(versions, namespace)
        : await deps.routing.apply(versions, allTo(versions.map((version) => version.name), versions[0].name), namespace);
    if (!result.ok) {
      const failed = trafficFailedStatus(experiment.status!, result.reason, `Initializing; traffic not set: ${result.reason}`, now);
      if (experiment.status!.message === failed.message) return 'initializing';
      const written = await write(experiment, failed, deps);
      return typeof written === 'string' ? written : 'initializing';
    }
    weights = result.weights;
  }
  const running = await write(experiment, runningStatus(experiment.status!, weights, now), deps);
  if (typeof running === 'string') return running;
  const message = `${runSpec.strategy.testingPattern} ${deploymentPattern(runSpec)} experiment started: ${totalIterations(runSpec)} iterations, every ${durationOf(runSpec).intervalSeconds}s`;
  await deps.recordEvent(running, 'Normal', 'Started', message);
  return 'started';
}

/** A spec changed after the run started: the run goes on with the spec it captured; say so once. */
async function noteSpecChange(experiment: Experiment, deps: EngineDeps): Promise<StartOutcome | 'conflict'> {
  const generation = experiment.metadata.generation ?? 0;
  const status = experiment.status!;
  const note = `the spec changed (generation ${generation}) after the run started; the run goes on with the spec it started with`;
  const written = await write(experiment, { ...status, observedGeneration: generation, conditions: withCondition(status.conditions, 'SpecChanged', 'True', 'SpecChangedDuringRun', note, deps.now()) }, deps);
  return typeof written === 'string' ? written : 'unchanged';
}
