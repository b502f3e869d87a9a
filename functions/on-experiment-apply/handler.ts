// on-experiment-apply: starts an experiment when it is added or its spec changes (validation,
// target, initial traffic), and lets the next experiment on a target start when one finishes or
// is deleted. The event names the experiment; the handler acts on what it reads now.
import type { Handler } from '../../shared/events/function-host.ts';
import { resourceChange } from '../../shared/events/event-types.ts';
import type { EngineDeps } from '../../shared/experiment/engine.ts';
import { startExperiment } from '../../shared/experiment/start-experiment.ts';
import { isFinished } from '../../shared/experiment/status.ts';
import type { Experiment } from '../../shared/kube/resources.ts';

export function makeHandler(deps: EngineDeps): Handler {
  return async (event, { log }) => {
    const change = resourceChange(event);
    if (!change || change.kind !== 'Experiment') return undefined;
    const seen = change.object as Partial<Experiment> | undefined;
    const ref = { namespace: change.namespace, name: change.name };
    if (change.action !== 'delete' && (seen?.status?.observedGeneration ?? -1) !== seen?.metadata?.generation) {
      const outcome = await startExperiment(ref, deps);
      log.info({ experiment: `${ref.namespace}/${ref.name}`, outcome }, 'experiment reconciled');
    }
    if (seen?.spec?.target && (change.action === 'delete' || isFinished(seen.status?.stage))) {
      const waiting = (await deps.experiments.list()).filter((experiment) => experiment.spec.target === seen.spec!.target && experiment.status?.stage === 'Waiting');
      for (const next of waiting) await startExperiment({ namespace: next.metadata.namespace!, name: next.metadata.name! }, deps);
    }
    return undefined;
  };
}
