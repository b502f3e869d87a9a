// Entry point of on-experiment-apply, locally and in its container.
import { runEngineFunction } from '../../shared/experiment/engine-from-env.ts';
import { makeHandler } from './handler.ts';

await runEngineFunction('on-experiment-apply', makeHandler);
