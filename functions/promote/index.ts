// Entry point of promote, locally and in its container.
import { runEngineFunction } from '../../shared/experiment/engine-from-env.ts';
import { makeHandler } from './handler.ts';

await runEngineFunction('promote', makeHandler);
