// Kubernetes Events (core/v1) on an object, as `kubectl describe` shows them.
import type { CoreV1Api } from '@kubernetes/client-node';
import type { Logger } from 'pino';

export interface InvolvedObject {
  apiVersion: string;
  kind: string;
  metadata: { name?: string; namespace?: string; uid?: string; resourceVersion?: string };
}

export type EventRecorder = (object: InvolvedObject, type: 'Normal' | 'Warning', reason: string, message: string) => Promise<void>;

/** Records Events as `component`; a failure to record is logged, never fatal. */
export function eventRecorder(core: CoreV1Api, component: string, log: Logger): EventRecorder {
  return async (object, type, reason, message) => {
    const { name, namespace, uid, resourceVersion } = object.metadata;
    const now = new Date();
    try {
      await core.createNamespacedEvent({
        namespace: namespace!,
        body: {
          metadata: { generateName: `${name}.`, namespace },
          involvedObject: { apiVersion: object.apiVersion, kind: object.kind, name, namespace, uid, resourceVersion },
          reason,
          message,
          type,
          source: { component },
          reportingComponent: component,
          reportingInstance: component,
          firstTimestamp: now,
          lastTimestamp: now,
          count: 1,
        },
      });
    } catch (error) {
      log.warn({ err: error, reason, object: `${namespace}/${name}` }, 'could not record a Kubernetes Event');
    }
  };
}
