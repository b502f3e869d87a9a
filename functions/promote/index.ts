// Entry point of promote, locally and in its container.
import { createLogger } from '../../shared/events/logger.ts';
import { runFunction } from '../../shared/events/function-host.ts';
import { engineDeps, kubeFromEnvironment } from '../../shared/experiment/engine-from-env.ts';
import { makeHandler } from './handler.ts';

const log = createLogger('promote');

await runFunction('promote', log, async () => {
  const { deps, close } = engineDeps('promote', log, kubeFromEnvironment(), { sink: process.env.K_SINK });
  return { handler: makeHandler(deps), close };
});
