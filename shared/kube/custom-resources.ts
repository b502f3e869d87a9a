// Namespaced custom resources through client-node, with the status writes the functions make:
// each carries the resourceVersion it was computed from, and a 409 means "read again and decide".
import { PatchStrategy, setHeaderOptions, type CustomObjectsApi } from '@kubernetes/client-node';
import { EXP_GROUP, EXP_VERSION } from './resources.ts';

export interface ObjectRef {
  namespace: string;
  name: string;
}

interface StoredObject {
  metadata: { name?: string; namespace?: string; resourceVersion?: string; generation?: number };
  status?: unknown;
}

const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

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

  /** Writes `status` if the object is still at `resourceVersion`. */
  async writeStatus(ref: ObjectRef, status: T['status'], resourceVersion: string): Promise<'written' | 'conflict' | 'gone'> {
    try {
      await this.api.patchNamespacedCustomObjectStatus({ ...this.target, ...ref, body: { metadata: { resourceVersion }, status } }, MERGE_PATCH);
      return 'written';
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
    const written = await resources.writeStatus(ref, status, object.metadata.resourceVersion!);
    if (written !== 'conflict') return written;
  }
  throw new Error(`status of ${ref.namespace}/${ref.name} kept changing under ${attempts} attempts to write it`);
}
