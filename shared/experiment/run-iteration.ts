// One iteration of a running experiment: fetch every metric for every version, judge them (DESIGN
// section 4), count the iteration with a status write that carries the resourceVersion it read,
// and only then move traffic. However many deliveries ask for an iteration, one write wins, and
// only its delivery moves traffic.
import { assessVersions, describeObjective, feasibility, type MetricValues, type Objective } from '../analysis/objectives.ts';
import { nextWeights, type Weights } from '../analysis/weights.ts';
import { assessWinner, recommendedVersion, type Reward, type WinnerAssessment } from '../analysis/winner.ts';
import { isDeepStrictEqual } from 'node:util';
import { EXPERIMENT_EVENT_TYPES } from '../events/event-types.ts';
import { updateStatus } from '../kube/custom-resources.ts';
import { parseQuantity } from '../kube/quantity.ts';
import type { Experiment } from '../kube/resources.ts';
import { emitQuietly, experimentEvent, refOf, type EngineDeps, type ExperimentRef } from './engine.ts';
import { deploymentPattern, metricKey, metricKeys, metricRef, testingPattern, totalIterations, versionsOf, weightLimits } from './experiment.ts';
import { dueIteration } from './schedule.ts';
import { iterationStatus, timestamp, trafficFailedStatus, type IterationOutcome, type RunSpec, type Status } from './status.ts';

export type IterationResult = 'counted' | 'not-due' | 'gone' | 'lost-race';

type Aggregated = NonNullable<NonNullable<Status['analysis']>['aggregatedMetrics']>;

const WRITE_ATTEMPTS = 5;

/** Every metric for every version, through the shared bound on queries in flight. */
async function fetchAll(experiment: Experiment, run: RunSpec, deps: EngineDeps): Promise<{ values: MetricValues; aggregated: Aggregated }> {
  const namespace = experiment.metadata.namespace!;
  const elapsedSeconds = (deps.now().getTime() - Date.parse(experiment.status!.startTime!)) / 1000;
  const values: MetricValues = {};
  const data: NonNullable<Aggregated['data']> = {};
  const queries = metricKeys(run.experiment, namespace).flatMap((key) =>
    versionsOf(run.experiment).map(async (version) => {
      const ref = metricRef(key, namespace);
      const { result } = await deps.limitQueries(() =>
        deps.fetchMetric({
          metric: { ...ref, spec: run.metrics[key] },
          namespace,
          version: { name: version.name, variables: Object.fromEntries((version.variables ?? []).map(({ name, value }) => [name, value])) },
          elapsedSeconds,
        }),
      );
      (values[key] ??= {})[version.name] = result.kind === 'value' ? { value: result.value } : { unavailable: result.reason };
      ((data[key] ??= { data: {} }).data ??= {})[version.name] = result.kind === 'value' ? { value: result.value, at: result.at } : { unavailable: result.reason, at: result.at };
    }),
  );
  await Promise.all(queries);
  return { values, aggregated: { timestamp: timestamp(deps.now()), data } };
}

function objectivesOf(run: RunSpec, namespace: string): Objective[] {
  return (run.experiment.criteria?.objectives ?? []).map((objective) => ({
    metric: metricKey(objective.metric, namespace),
    upperLimit: parseQuantity(objective.upperLimit),
    lowerLimit: parseQuantity(objective.lowerLimit),
  }));
}

function rewardsOf(run: RunSpec, namespace: string): Reward[] {
  return (run.experiment.criteria?.rewards ?? []).map((reward) => ({ metric: metricKey(reward.metric, namespace), preferredDirection: reward.preferredDirection }));
}

interface TrafficPlan {
  /** The weights the routing objects hold now. */
  current?: Weights;
  /** Where Progressive moves them this iteration. */
  next?: Weights;
  problem?: string;
}

/** Progressive moves traffic one step toward the target; FixedSplit and BlueGreen only read it. */
async function planTraffic(experiment: Experiment, run: RunSpec, verdict: { target: string; feasible: Record<string, boolean> }, deps: EngineDeps): Promise<TrafficPlan> {
  const versions = versionsOf(run.experiment);
  if (!versions.some((version) => version.weightObjRef)) return {};
  const current = await deps.routing.read(versions, experiment.metadata.namespace!);
  if (!current.ok) return { problem: current.reason };
  if (deploymentPattern(run.experiment) !== 'Progressive' || versions.length < 2) return { current: current.weights };
  return { current: current.weights, next: nextWeights(current.weights, verdict, weightLimits(run.experiment)) };
}

export async function runIteration(ref: ExperimentRef, iteration: number, deps: EngineDeps): Promise<IterationResult> {
  let experiment = await deps.experiments.get(ref);
  if (!experiment) return 'gone';
  if (dueIteration(experiment, deps.now()) !== iteration) return 'not-due';
  const run = experiment.status!.runSpec as unknown as RunSpec;
  const namespace = ref.namespace;
  const names = versionsOf(run.experiment).map((version) => version.name);
  const log = deps.log.child({ experiment: `${ref.namespace}/${ref.name}`, iteration });

  const { values, aggregated } = await fetchAll(experiment, run, deps);
  const objectives = objectivesOf(run, namespace);
  const assessments = assessVersions(names, objectives, values);
  const feasible = feasibility(assessments);
  const winner = assessWinner(testingPattern(run.experiment), names, feasible, rewardsOf(run, namespace), values);
  const recommended = recommendedVersion(names, winner);
  const plan = await planTraffic(experiment, run, { target: winner.winner ?? names[0], feasible }, deps);
  const stamp = timestamp(deps.now());
  const weights = plan.next ?? plan.current;
  const outcome: IterationOutcome = {
    iteration,
    last: iteration >= totalIterations(run.experiment),
    analysis: {
      aggregatedMetrics: aggregated,
      versionAssessments: { timestamp: stamp, objectives: objectives.map(describeObjective), data: assessments },
      winnerAssessment: { timestamp: stamp, data: winner },
      ...(weights ? { weights: { timestamp: stamp, data: weights } } : {}),
    },
    winner,
    recommended,
    weights,
    trafficProblem: plan.problem,
  };

  // Claim the iteration first: only the delivery whose status write wins moves traffic.
  for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
    const previousWinner = experiment.status?.analysis?.winnerAssessment?.data?.winner;
    const written = await deps.experiments.writeStatus(experiment, iterationStatus(experiment.status!, outcome, deps.now()));
    if (written === 'gone') return 'gone';
    if (written !== 'conflict') {
      log.info({ winner: winner.winner ?? null, weights }, 'iteration counted');
      if (plan.next) await applyTraffic(written, run, plan, deps);
      await announce(written, outcome, previousWinner, deps);
      return 'counted';
    }
    // Something else wrote the status meanwhile: still ours to count only if it is still due.
    const reread = await deps.experiments.get(ref);
    if (!reread) return 'gone';
    if (dueIteration(reread, deps.now()) !== iteration) return 'lost-race';
    experiment = reread;
  }
  throw new Error(`status of ${ref.namespace}/${ref.name} kept changing under ${WRITE_ATTEMPTS} attempts to count iteration ${iteration}`);
}

/** Sets the weights the claimed iteration chose; what the routing objects did not take shows in the status. */
async function applyTraffic(experiment: Experiment, run: RunSpec, plan: TrafficPlan, deps: EngineDeps): Promise<void> {
  const applied = await deps.routing.apply(versionsOf(run.experiment), plan.next!, experiment.metadata.namespace!);
  if (applied.ok && isDeepStrictEqual(applied.weights, plan.next)) return;
  await updateStatus(deps.experiments, refOf(experiment), async (current) => {
    const status = current.status!;
    if (!applied.ok) return { ...trafficFailedStatus(status, applied.reason, status.message, deps.now()), currentWeightDistribution: plan.current };
    return { ...status, currentWeightDistribution: applied.weights };
  });
}

/** Kubernetes Events and CloudEvents for what the iteration found. */
async function announce(experiment: Experiment, outcome: IterationOutcome, previousWinner: string | undefined, deps: EngineDeps): Promise<void> {
  const ref = refOf(experiment);
  const winner: WinnerAssessment = outcome.winner;
  if (winner.winner && winner.winner !== previousWinner) {
    const changed = previousWinner !== undefined;
    await deps.recordEvent(experiment, 'Normal', changed ? 'WinnerChanged' : 'WinnerFound', changed ? `winner changed from ${previousWinner} to ${winner.winner}` : `winner found: ${winner.winner}`);
  }
  await emitQuietly(deps, experimentEvent(deps, EXPERIMENT_EVENT_TYPES.iteration, ref, { iteration: outcome.iteration, winner: winner.winner ?? null, weights: outcome.weights ?? null }));
  if (outcome.last) {
    await deps.recordEvent(experiment, 'Normal', 'Completed', `completed ${outcome.iteration} iterations; ${outcome.recommended} is recommended for promotion`);
    await emitQuietly(deps, experimentEvent(deps, EXPERIMENT_EVENT_TYPES.completed, ref, { version: outcome.recommended }));
  }
}
