// When iterations are due, and which experiment holds a target.
import type { Experiment } from '../kube/resources.ts';
import { durationOf, totalIterations } from './experiment.ts';
import { isFinished, type RunSpec } from './status.ts';

/** The spec a run measures: captured at its start, or the current one before that. */
export function runSpecOf(experiment: Experiment): RunSpec['experiment'] {
  return (experiment.status?.runSpec as unknown as RunSpec | undefined)?.experiment ?? experiment.spec;
}

/** The number of the next iteration when it is due at `now`: the first at once, then every intervalSeconds. */
export function dueIteration(experiment: Experiment, now: Date): number | undefined {
  const status = experiment.status;
  if (status?.stage !== 'Running' || !status.startTime) return undefined;
  const spec = runSpecOf(experiment);
  const completed = status.completedIterations ?? 0;
  if (completed >= totalIterations(spec)) return undefined;
  const since = completed === 0 ? Date.parse(status.startTime) : Date.parse(status.lastIterationTime ?? status.startTime) + durationOf(spec).intervalSeconds * 1000;
  return now.getTime() >= since ? completed + 1 : undefined;
}

function age(experiment: Experiment): [number, string] {
  return [Date.parse(experiment.metadata.creationTimestamp as unknown as string) || 0, `${experiment.metadata.namespace}/${experiment.metadata.name}`];
}

/** The experiment that holds `target`: the oldest one on it that has not finished. */
export function targetHolder(target: string, experiments: Experiment[]): Experiment | undefined {
  return experiments
    .filter((experiment) => experiment.spec.target === target && !isFinished(experiment.status?.stage))
    .sort((a, b) => {
      const [ageA, nameA] = age(a);
      const [ageB, nameB] = age(b);
      return ageA - ageB || nameA.localeCompare(nameB);
    })[0];
}
