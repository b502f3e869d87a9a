// Entry point of iteration-tick, locally and in its container.
import { runEngineFunction } from '../../shared/experiment/engine-from-env.ts';
import { makeHandler } from './handler.ts';

await runEngineFunction('iteration-tick', makeHandler);
