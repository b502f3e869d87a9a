// Entry point of on-experiment-apply, locally and in its container.
import { createLogger } from '../../shared/events/logger.ts';
import { runFunction } from '../../shared/events/function-host.ts';
import { engineDeps, kubeFromEnvironment } from '../../shared/experiment/engine-from-env.ts';
import { makeHandler } from './handler.ts';

const log = createLogger('on-experiment-apply');

await runFunction('on-experiment-apply', log, async () => {
  const { deps, close } = engineDeps('on-experiment-apply', log, kubeFromEnvironment(), { sink: process.env.K_SINK });
  return { handler: makeHandler(deps), close };
});
