// iteration-tick: on a ping, one iteration.due event per experiment that is due (and the repairs);
// on an iteration.due event, that experiment's iteration.
import { EXPERIMENT_EVENT_TYPES, PING_EVENT_TYPE } from '../../shared/events/event-types.ts';
import { UnusableEvent, type Handler } from '../../shared/events/function-host.ts';
import type { EngineDeps } from '../../shared/experiment/engine.ts';
import { runIteration } from '../../shared/experiment/run-iteration.ts';
import { tick } from '../../shared/experiment/tick.ts';

export function makeHandler(deps: EngineDeps): Handler {
  return async (event, { log }) => {
    if (event.type === PING_EVENT_TYPE) {
      const summary = await tick(deps);
      log.debug(summary, 'tick');
    } else if (event.type === EXPERIMENT_EVENT_TYPES.iterationDue) {
      const { namespace, name, iteration } = (event.data ?? {}) as { namespace?: string; name?: string; iteration?: number };
      if (!namespace || !name || !Number.isInteger(iteration)) throw new UnusableEvent('iteration.due event without namespace, name and iteration');
      const result = await runIteration({ namespace, name }, iteration!, deps);
      log.debug({ experiment: `${namespace}/${name}`, iteration, result }, 'iteration');
    }
    return undefined;
  };
}
