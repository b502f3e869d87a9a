// Namespaced custom resources through client-node, with the status writes the functions make:
// each carries the resourceVersion it was computed from, and a 409 means "read again and decide".
import type { CustomObjectsApi } from '@kubernetes/client-node';
import { EXP_GROUP, EXP_VERSION } from './resources.ts';

export interface ObjectRef {
  namespace: string;
  name: string;
}

interface StoredObject {
  metadata: { name?: string; namespace?: string; resourceVersion?: string; generation?: number };
  status?: unknown;
}

function codeOf(error: unknown): number | undefined {
  return (error as { code?: number }).code;
}

export class CustomResources<T extends StoredObject> {
  private readonly api: CustomObjectsApi;
  private readonly target: { group: string; version: string; plural: string };

  constructor(api: CustomObjectsApi, plural: string, group = EXP_GROUP, version = EXP_VERSION) {
    this.api = api;
    this.target = { group, version, plural };
  }

  /** The object, or undefined when it does not exist. */
  async get(ref: ObjectRef): Promise<T | undefined> {
    try {
      return (await this.api.getNamespacedCustomObject({ ...this.target, ...ref })) as T;
    } catch (error) {
      if (codeOf(error) === 404) return undefined;
      throw error;
    }
  }

  /** Every object, in every namespace. */
  async list(): Promise<T[]> {
    return ((await this.api.listClusterCustomObject(this.target)) as { items: T[] }).items;
  }

  /**
   * Replaces the status of `object` as it was read: the request carries its resourceVersion, so a
   * write made meanwhile turns it into a 409 ('conflict'). Returns the object as written.
   */
  async writeStatus(object: T, status: T['status']): Promise<T | 'conflict' | 'gone'> {
    const ref = { namespace: object.metadata.namespace!, name: object.metadata.name! };
    try {
      return (await this.api.replaceNamespacedCustomObjectStatus({ ...this.target, ...ref, body: { ...object, status } })) as T;
    } catch (error) {
      if (codeOf(error) === 409) return 'conflict';
      if (codeOf(error) === 404) return 'gone';
      throw error;
    }
  }
}

export type StatusUpdate = 'written' | 'unchanged' | 'gone';

/**
 * Reads the object, asks `decide` for its status (undefined: nothing to change) and writes it with
 * the resourceVersion it read; on a conflict, reads and decides again.
 */
export async function updateStatus<T extends StoredObject>(
  resources: CustomResources<T>,
  ref: ObjectRef,
  decide: (object: T) => Promise<T['status'] | undefined>,
  attempts = 5,
): Promise<StatusUpdate> {
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const object = await resources.get(ref);
    if (!object) return 'gone';
    const status = await decide(object);
    if (status === undefined) return 'unchanged';
    const written = await resources.writeStatus(object, status);
    if (written === 'gone') return 'gone';
    if (written !== 'conflict') return 'written';
  }
  throw new Error(`status of ${ref.namespace}/${ref.name} kept changing under ${attempts} attempts to write it`);
}
