// promote: on dev.exp.experiment.completed, promotes the recommended version (once).
import { EXPERIMENT_EVENT_TYPES } from '../../shared/events/event-types.ts';
import { UnusableEvent, type Handler } from '../../shared/events/function-host.ts';
import type { EngineDeps } from '../../shared/experiment/engine.ts';
import { promoteWinner } from '../../shared/experiment/promote-winner.ts';

export function makeHandler(deps: EngineDeps): Handler {
  return async (event, { log }) => {
    if (event.type !== EXPERIMENT_EVENT_TYPES.completed) return undefined;
    const { namespace, name } = (event.data ?? {}) as { namespace?: string; name?: string };
    if (!namespace || !name) throw new UnusableEvent('completed event without namespace and name');
    const result = await promoteWinner({ namespace, name }, deps);
    log.info({ experiment: `${namespace}/${name}`, result }, 'promotion');
    return undefined;
  };
}
