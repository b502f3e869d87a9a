// Weights in the routing objects (weightObjRef): read per version, written with one JSON patch per
// object so that a stack that checks the sum (Knative: 100) sees both changes at once.
import { CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import type { Weights } from '../analysis/weights.ts';
import { normalizeWeights } from '../analysis/weights.ts';
import { pluralLookup } from '../kube/discovery.ts';
import type { VersionDetail, WeightObjRef } from '../experiment/experiment.ts';
import { jsonPointer, parseFieldPath, pathText, valueAt, type Step } from './field-path.ts';

const JSON_PATCH = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);

interface Target {
  group: string;
  version: string;
  plural: string;
  namespace: string;
  name: string;
}

export type RoutingRead = { ok: true; weights: Weights } | { ok: false; reason: string };

export class Routing {
  private readonly api: CustomObjectsApi;
  private readonly plural: (apiVersion: string, kind: string) => Promise<string | undefined>;

  constructor(kube: KubeConfig) {
    this.api = kube.makeApiClient(CustomObjectsApi);
    this.plural = pluralLookup(kube);
  }

  private async target(ref: WeightObjRef, namespace: string): Promise<Target | string> {
    const plural = await this.plural(ref.apiVersion, ref.kind);
    if (!plural) return `${ref.apiVersion} ${ref.kind} is not served by the cluster (is its stack installed?)`;
    const [group, version] = ref.apiVersion.includes('/') ? ref.apiVersion.split('/') : ['', ref.apiVersion];
    return { group, version, plural, namespace: ref.namespace ?? namespace, name: ref.name };
  }

  private async object(target: Target): Promise<Record<string, unknown> | undefined> {
    try {
      return (await this.api.getNamespacedCustomObject(target)) as Record<string, unknown>;
    } catch (error) {
      if ((error as { code?: number }).code === 404) return undefined;
      throw error;
    }
  }

  /** Whether a weightObjRef names an existing object with a number at its fieldPath. */
  async check(ref: WeightObjRef, namespace: string): Promise<{ ok: true } | { ok: false; reason: string }> {
    const read = await this.read([{ name: 'version', weightObjRef: ref }], namespace);
    return read.ok ? { ok: true } : { ok: false, reason: read.reason.replace(/^version version: /, '') };
  }

  private weightIn(object: unknown, steps: Step[], where: string): { value: number } | { reason: string } {
    const found = valueAt(object, steps);
    if (!found.found) {
      // A missing last key is a weight not set yet (KServe's canaryTrafficPercent): 0.
      const parent = valueAt(object, steps.slice(0, -1));
      if (typeof steps.at(-1) === 'string' && parent.found && parent.value && typeof parent.value === 'object') return { value: 0 };
      return { reason: `${where} has no ${found.missing} (fieldPath ${pathText(steps)})` };
    }
    if (typeof found.value !== 'number') return { reason: `${where}: ${pathText(steps)} is ${JSON.stringify(found.value)}, not a number` };
    return { value: found.value };
  }

  /** The weights of `versions` as the routing objects hold them (one read per object); a version without a weightObjRef gets the rest. */
  async read(versions: VersionDetail[], namespace: string): Promise<RoutingRead> {
    const objects = new Map<string, Promise<Record<string, unknown> | string>>();
    const weights: Weights = [];
    for (const version of versions) {
      const ref = version.weightObjRef;
      if (!ref) {
        weights.push({ name: version.name, value: 0 });
        continue;
      }
      let steps: Step[];
      try {
        steps = parseFieldPath(ref.fieldPath);
      } catch (error) {
        return { ok: false, reason: `version ${version.name}: ${(error as Error).message}` };
      }
      const key = `${ref.apiVersion}|${ref.kind}|${ref.namespace ?? namespace}|${ref.name}`;
      if (!objects.has(key)) objects.set(key, this.fetchObject(ref, namespace));
      const object = await objects.get(key)!;
      if (typeof object === 'string') return { ok: false, reason: `version ${version.name}: ${object}` };
      const read = this.weightIn(object, steps, `${ref.kind} ${ref.namespace ?? namespace}/${ref.name}`);
      if ('reason' in read) return { ok: false, reason: `version ${version.name}: ${read.reason}` };
      weights.push({ name: version.name, value: read.value });
    }
    return { ok: true, weights: impliedWeight(versions, weights) };
  }

  /** The routing object, or why it cannot be had. */
  private async fetchObject(ref: WeightObjRef, namespace: string): Promise<Record<string, unknown> | string> {
    const target = await this.target(ref, namespace);
    if (typeof target === 'string') return target;
    try {
      return (await this.object(target)) ?? `${ref.kind} ${target.namespace}/${ref.name} does not exist`;
    } catch (error) {
      return `cannot read ${ref.kind} ${target.namespace}/${ref.name}: ${(error as Error).message.split('\n')[0]}`;
    }
  }

  /** Writes `weights` and returns them as read back. */
  async apply(versions: VersionDetail[], weights: Weights, namespace: string): Promise<RoutingRead> {
    const byObject = new Map<string, { ref: WeightObjRef; operations: object[]; versions: { name: string; steps: Step[] }[] }>();
    for (const version of versions) {
      const ref = version.weightObjRef;
      if (!ref) continue;
      const key = `${ref.apiVersion}|${ref.kind}|${ref.namespace ?? namespace}|${ref.name}`;
      const entry = byObject.get(key) ?? { ref, operations: [], versions: [] };
      const steps = parseFieldPath(ref.fieldPath);
      entry.operations.push({ op: typeof steps.at(-1) === 'number' ? 'replace' : 'add', path: jsonPointer(steps), value: weights.find((weight) => weight.name === version.name)!.value });
      entry.versions.push({ name: version.name, steps });
      byObject.set(key, entry);
    }
    const readBack = new Map<string, number>();
    for (const { ref, operations, versions: written } of byObject.values()) {
      const target = await this.target(ref, namespace);
      if (typeof target === 'string') return { ok: false, reason: target };
      const where = `${ref.kind} ${target.namespace}/${ref.name}`;
      let patched: unknown;
      try {
        patched = await this.api.patchNamespacedCustomObject({ ...target, body: operations }, JSON_PATCH);
      } catch (error) {
        const { code, body } = error as { code?: number; body?: string };
        const message = statusMessage(body) ?? (error as Error).message.split('\n')[0];
        return { ok: false, reason: `cannot set weights in ${where}: ${code ? `HTTP ${code}: ` : ''}${message}` };
      }
      for (const { name, steps } of written) {
        const read = this.weightIn(patched, steps, where);
        if ('reason' in read) return { ok: false, reason: read.reason };
        readBack.set(name, read.value);
      }
    }
    return { ok: true, weights: impliedWeight(versions, versions.map((version) => ({ name: version.name, value: readBack.get(version.name) ?? 0 }))) };
  }
}

/** The one version without a weightObjRef gets 100 minus the others. */
function impliedWeight(versions: VersionDetail[], weights: Weights): Weights {
  const implied = versions.find((version) => !version.weightObjRef);
  if (!implied) return weights;
  const others = weights.filter((weight) => weight.name !== implied.name).reduce((sum, weight) => sum + weight.value, 0);
  const filled = weights.map((weight) => (weight.name === implied.name ? { ...weight, value: Math.max(0, 100 - others) } : weight));
  return implied.name === versions[0].name ? normalizeWeights(filled) : filled;
}

function statusMessage(body: string | undefined): string | undefined {
  try {
    return (JSON.parse(body ?? '') as { message?: string }).message;
  } catch {
    return undefined;
  }
}
