// The periodic tick: one iteration.due event per experiment whose iteration is due, so that the
// iterations spread over the function's instances; and the repairs of what events missed.
import { EXPERIMENT_EVENT_TYPES } from '../events/event-types.ts';
import type { Experiment } from '../kube/resources.ts';
import { emitQuietly, experimentEvent, refOf, type EngineDeps } from './engine.ts';
import { dueIteration } from './schedule.ts';
import { startExperiment } from './start-experiment.ts';

export interface TickSummary {
  due: number;
  started: number;
  repromoted: number;
}

/** Experiments that events may have missed: never handled, waiting for their target, stuck initializing, or changed after failing. */
function needsStart(experiment: Experiment): boolean {
  const status = experiment.status;
  if (!status?.stage) return true;
  if (status.stage === 'Waiting' || status.stage === 'Initializing') return true;
  return status.stage === 'Failed' && (status.observedGeneration ?? -1) < (experiment.metadata.generation ?? 0);
}

export async function tick(deps: EngineDeps, concurrency = 16): Promise<TickSummary> {
  const now = deps.now();
  const summary: TickSummary = { due: 0, started: 0, repromoted: 0 };
  const work: (() => Promise<void>)[] = [];
  for (const experiment of await deps.experiments.list()) {
    const ref = refOf(experiment);
    const iteration = dueIteration(experiment, now);
    if (iteration !== undefined) {
      summary.due++;
      work.push(async () => void (await emitQuietly(deps, experimentEvent(deps, EXPERIMENT_EVENT_TYPES.iterationDue, ref, { iteration }))));
    } else if (needsStart(experiment)) {
      work.push(async () => {
        if ((await startExperiment(ref, deps)) === 'started') summary.started++;
      });
    } else if (experiment.status?.stage === 'Completed' && !experiment.status.promotion) {
      summary.repromoted++;
      const version = experiment.status.versionRecommendedForPromotion;
      work.push(async () => void (await emitQuietly(deps, experimentEvent(deps, EXPERIMENT_EVENT_TYPES.completed, ref, { version }))));
    }
  }
  // A fixed number of workers drain the list: the broker sees a steady stream, not a burst.
  const workers = Array.from({ length: concurrency }, async () => {
    for (let job = work.shift(); job; job = work.shift()) {
      await job().catch((error) => deps.log.error({ err: error }, 'tick work failed'));
    }
  });
  await Promise.all(workers);
  return summary;
}
