// The status on-metric-apply writes: the Ready condition for a generation of the Metric.
import { isDeepStrictEqual } from 'node:util';
import type { MetricStatus } from '../kube/resources.ts';
import type { MetricProblem } from './validate-metric.ts';

type Condition = NonNullable<MetricStatus['conditions']>[number];

export function readyCondition(problems: MetricProblem[], generation: number, previous: Condition | undefined, now: Date): Condition {
  const status = problems.length ? 'False' : 'True';
  const [reason, message] = problems.length
    ? [problems[0].reason, problems.map((problem) => problem.message).join('; ')]
    : ['Valid', 'the Metric is valid and can be queried'];
  // lastTransitionTime moves only when the status does, as Kubernetes conditions do.
  const lastTransitionTime = previous?.status === status && previous.lastTransitionTime ? previous.lastTransitionTime : now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return { type: 'Ready', status, reason, message, lastTransitionTime, observedGeneration: generation };
}

/** The Metric's next status, or undefined when the current one already says the same. */
export function nextMetricStatus(current: MetricStatus | undefined, generation: number, problems: MetricProblem[], now: Date): MetricStatus | undefined {
  const previous = current?.conditions?.find((condition) => condition.type === 'Ready');
  const ready = readyCondition(problems, generation, previous, now);
  const next: MetricStatus = {
    ...current,
    observedGeneration: generation,
    conditions: [...(current?.conditions ?? []).filter((condition) => condition.type !== 'Ready'), ready],
  };
  return isDeepStrictEqual(next, current) ? undefined : next;
}
