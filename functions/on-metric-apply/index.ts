// Entry point of on-metric-apply, locally and in its container.
import { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { createLogger } from '../../shared/events/logger.ts';
import { runFunction } from '../../shared/events/function-host.ts';
import { CustomResources } from '../../shared/kube/custom-resources.ts';
import { JqPool } from '../../shared/metrics/jq/jq-pool.ts';
import { makeHandler } from './handler.ts';

const COMPILE_TIMEOUT_MS = 5000;
const log = createLogger('on-metric-apply');

await runFunction('on-metric-apply', log, async () => {
  const kube = new KubeConfig();
  kube.loadFromDefault();
  const jq = new JqPool({ size: 1 });
  const handler = makeHandler({
    metrics: new CustomResources(kube.makeApiClient(CustomObjectsApi), 'metrics'),
    compileJq: (expression) => jq.compile(expression, Date.now() + COMPILE_TIMEOUT_MS),
    now: () => new Date(),
    log,
  });
  return { handler, close: () => jq.close() };
});
