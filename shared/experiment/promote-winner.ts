// Promotion at the end of a run: Progressive and BlueGreen send all traffic to the version
// recommended for promotion; FixedSplit leaves traffic as the user set it. The record in
// status.promotion makes a second delivery change nothing more.
import { allTo } from '../analysis/weights.ts';
import { EXPERIMENT_EVENT_TYPES } from '../events/event-types.ts';
import { emitQuietly, experimentEvent, type EngineDeps, type ExperimentRef } from './engine.ts';
import { deploymentPattern, versionsOf } from './experiment.ts';
import { promotionStatus, timestamp, trafficFailedStatus, type RunSpec } from './status.ts';

export type PromotionResult = 'promoted' | 'not-promoted' | 'failed' | 'already' | 'not-completed' | 'gone';

const ATTEMPTS = 5;

export async function promoteWinner(ref: ExperimentRef, deps: EngineDeps): Promise<PromotionResult> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const experiment = await deps.experiments.get(ref);
    if (!experiment) return 'gone';
    const status = experiment.status;
    if (status?.stage !== 'Completed') return 'not-completed';
    if (status.promotion) return 'already';
    const run = (status.runSpec as unknown as RunSpec).experiment;
    const version = status.versionRecommendedForPromotion ?? run.versionInfo.baseline.name;
    const versions = versionsOf(run);
    const now = deps.now();
    const moves = deploymentPattern(run) !== 'FixedSplit' && versions.some((candidate) => candidate.weightObjRef);
    let weights;
    if (moves) {
      const applied = await deps.routing.apply(versions, allTo(versions.map((candidate) => candidate.name), version), ref.namespace);
      if (!applied.ok) {
        // No record: the tick sends the completed event again, and promotion is retried.
        const failed = trafficFailedStatus(status, applied.reason, `Promotion of ${version} failed: ${applied.reason}; retrying`, now);
        const written = await deps.experiments.writeStatus(experiment, failed);
        if (written === 'conflict') continue;
        return written === 'gone' ? 'gone' : 'failed';
      }
      weights = applied.weights;
    }
    const promotion = moves
      ? { version, time: timestamp(now), outcome: 'Promoted' as const, message: `Promoted: all traffic to ${version}` }
      : { version, time: timestamp(now), outcome: 'NotPromoted' as const, message: `Completed: ${version} is recommended; FixedSplit leaves traffic as set` };
    const written = await deps.experiments.writeStatus(experiment, promotionStatus(status, promotion, weights, now));
    if (written === 'conflict') continue;
    if (written === 'gone') return 'gone';
    await deps.recordEvent(written, 'Normal', moves ? 'Promoted' : 'NotPromoted', promotion.message);
    await emitQuietly(deps, experimentEvent(deps, EXPERIMENT_EVENT_TYPES.promoted, ref, { version, outcome: promotion.outcome }));
    return moves ? 'promoted' : 'not-promoted';
  }
  throw new Error(`status of ${ref.namespace}/${ref.name} kept changing under ${ATTEMPTS} attempts to record its promotion`);
}
