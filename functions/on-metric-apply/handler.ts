// on-metric-apply: on add and update of a Metric, validates it and writes its Ready condition.
// Level-triggered: the event only says which Metric to look at; the handler reads the current one,
// and writes nothing when the status already says the same (so its own status write, which comes
// back as an update event, ends there).
import type { Logger } from 'pino';
import type { Handler } from '../../shared/events/function-host.ts';
import { resourceChange } from '../../shared/events/event-types.ts';
import { updateStatus, type CustomResources } from '../../shared/kube/custom-resources.ts';
import type { Metric } from '../../shared/kube/resources.ts';
import { nextMetricStatus } from '../../shared/metrics/metric-status.ts';
import { metricProblems, type CompileJq } from '../../shared/metrics/validate-metric.ts';

export interface OnMetricApplyDeps {
  metrics: CustomResources<Metric>;
  compileJq: CompileJq;
  now: () => Date;
  log: Logger;
}

export function makeHandler(deps: OnMetricApplyDeps): Handler {
  return async (event, { log }) => {
    const change = resourceChange(event);
    if (!change || change.kind !== 'Metric' || change.action === 'delete') return undefined;
    const ref = { namespace: change.namespace, name: change.name };
    const outcome = await updateStatus(deps.metrics, ref, async (metric) => {
      const problems = await metricProblems(metric.spec, deps.compileJq);
      return nextMetricStatus(metric.status, metric.metadata.generation ?? 0, problems, deps.now());
    });
    log.info({ metric: `${ref.namespace}/${ref.name}`, outcome }, outcome === 'written' ? 'metric status written' : 'metric status unchanged');
    return undefined;
  };
}
