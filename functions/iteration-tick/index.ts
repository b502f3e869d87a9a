// Entry point of iteration-tick, locally and in its container. The experiment engine (the next issue) gives it
// its handler; until then it acknowledges the events its Trigger routes to it.
import { createLogger } from '../../shared/events/logger.ts';
import { runFunction } from '../../shared/events/function-host.ts';

const log = createLogger('iteration-tick');

await runFunction('iteration-tick', log, async () => ({
  handler: async (event, context) => {
    context.log.debug({ type: event.type }, 'event acknowledged; the experiment engine is not in this version');
    return undefined;
  },
}));
