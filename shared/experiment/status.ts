// The Experiment's status through its stages (DESIGN 3.5), as pure functions of the current status:
// Waiting → Initializing → Running → Completed, or Failed with a reason.
import type { WinnerAssessment } from '../analysis/winner.ts';
import type { Weights } from '../analysis/weights.ts';
import type { ExperimentSpec, ExperimentStatus, MetricSpec } from '../kube/resources.ts';
import type { ExperimentProblem } from './validate-experiment.ts';

export type Status = ExperimentStatus;
type Condition = NonNullable<Status['conditions']>[number];
export type Stage = NonNullable<Status['stage']>;

/** What a run measures: the spec and the Metrics as they were when it started. */
export interface RunSpec {
  experiment: ExperimentSpec;
  metrics: Record<string, MetricSpec>;
}

export const WEIGHT_HISTORY_SIZE = 10;

export function timestamp(now: Date): string {
  return now.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function isFinished(stage: Stage | undefined): boolean {
  return stage === 'Completed' || stage === 'Failed';
}

/** Sets one condition; its lastTransitionTime moves only when its status does. */
export function withCondition(conditions: Condition[] | undefined, type: string, status: Condition['status'], reason: string, message: string, now: Date): Condition[] {
  const previous = conditions?.find((condition) => condition.type === type);
  const lastTransitionTime = previous?.status === status && previous.lastTransitionTime ? previous.lastTransitionTime : timestamp(now);
  return [...(conditions ?? []).filter((condition) => condition.type !== type), { type, status, reason, message, lastTransitionTime }];
}

export function failedStatus(current: Status | undefined, generation: number, problems: ExperimentProblem[], now: Date): Status {
  const message = problems.map((problem) => problem.message).join('; ');
  return {
    ...current,
    observedGeneration: generation,
    stage: 'Failed',
    completedIterations: current?.completedIterations ?? 0,
    message: `Failed: ${message}`,
    lastUpdateTime: timestamp(now),
    conditions: withCondition(current?.conditions, 'ExperimentFailed', 'True', problems[0].reason, message, now),
  };
}

export function waitingStatus(current: Status | undefined, generation: number, holder: string, target: string, now: Date): Status {
  const message = `experiment ${holder} holds target ${target}; this one starts when it finishes`;
  return {
    ...current,
    observedGeneration: generation,
    stage: 'Waiting',
    completedIterations: 0,
    message: `Waiting: ${message}`,
    lastUpdateTime: timestamp(now),
    conditions: withCondition(withCondition(current?.conditions, 'ExperimentFailed', 'False', 'Valid', 'the experiment is valid', now), 'TargetAcquired', 'False', 'TargetHeld', message, now),
  };
}

export function initializingStatus(current: Status | undefined, generation: number, runSpec: RunSpec, now: Date): Status {
  let conditions = withCondition(current?.conditions, 'ExperimentFailed', 'False', 'Valid', 'the experiment is valid', now);
  conditions = withCondition(conditions, 'TargetAcquired', 'True', 'TargetAcquired', `target ${runSpec.experiment.target} acquired`, now);
  return {
    ...current,
    observedGeneration: generation,
    stage: 'Initializing',
    message: 'Initializing: setting the initial traffic',
    initTime: current?.initTime ?? timestamp(now),
    lastUpdateTime: timestamp(now),
    completedIterations: 0,
    conditions,
    runSpec: runSpec as unknown as Record<string, unknown>,
  };
}

/** Traffic could not be set: the reason shows in `message` and a condition, and the next attempt retries. */
export function trafficFailedStatus(current: Status, reason: string, message: string | undefined, now: Date): Status {
  return {
    ...current,
    message,
    lastUpdateTime: timestamp(now),
    conditions: withCondition(current.conditions, 'TrafficApplied', 'False', 'RoutingPatchFailed', `${reason}; retried at the next iteration`, now),
  };
}

function trafficApplied(conditions: Condition[] | undefined, now: Date): Condition[] {
  return withCondition(conditions, 'TrafficApplied', 'True', 'WeightsSet', 'the routing objects hold the weights', now);
}

export function runningStatus(current: Status, weights: Weights | undefined, now: Date): Status {
  return {
    ...current,
    stage: 'Running',
    message: 'Running: started; the first iteration is due now',
    startTime: timestamp(now),
    lastUpdateTime: timestamp(now),
    ...(weights ? { currentWeightDistribution: weights } : {}),
    conditions: weights ? trafficApplied(current.conditions, now) : current.conditions,
  };
}

export interface IterationOutcome {
  iteration: number;
  last: boolean;
  analysis: NonNullable<Status['analysis']>;
  winner: WinnerAssessment;
  recommended: string;
  /** The weights read back from the routing objects after this iteration, when there are any. */
  weights?: Weights;
  /** Why the routing objects did not take the weights, if they did not. */
  trafficProblem?: string;
}

export function iterationStatus(current: Status, outcome: IterationOutcome, now: Date): Status {
  const history = [...(current.weightHistory ?? []), ...(outcome.weights ? [{ iteration: outcome.iteration, weights: outcome.weights }] : [])].slice(-WEIGHT_HISTORY_SIZE);
  let conditions = current.conditions;
  if (outcome.trafficProblem) {
    conditions = withCondition(conditions, 'TrafficApplied', 'False', 'RoutingPatchFailed', `${outcome.trafficProblem}; retried at the next iteration`, now);
  } else if (outcome.weights) conditions = trafficApplied(conditions, now);
  if (outcome.last) {
    conditions = withCondition(conditions, 'ExperimentCompleted', 'True', 'Completed', `completed ${outcome.iteration} iterations; ${outcome.recommended} is recommended for promotion`, now);
  }
  return {
    ...current,
    stage: outcome.last ? 'Completed' : 'Running',
    completedIterations: outcome.iteration,
    message: `IterationUpdate: Completed Iteration ${outcome.iteration}`,
    analysis: outcome.analysis,
    versionRecommendedForPromotion: outcome.recommended,
    ...(outcome.weights ? { currentWeightDistribution: outcome.weights } : {}),
    weightHistory: history,
    lastUpdateTime: timestamp(now),
    lastIterationTime: timestamp(now),
    conditions,
  };
}

export function promotionStatus(current: Status, promotion: NonNullable<Status['promotion']>, weights: Weights | undefined, now: Date): Status {
  return {
    ...current,
    promotion,
    message: promotion.message ?? `${promotion.outcome}: ${promotion.version}`,
    ...(weights ? { currentWeightDistribution: weights } : {}),
    lastUpdateTime: timestamp(now),
  };
}
