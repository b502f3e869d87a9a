// Which resource (plural) serves a kind: client-node's discovery, which KubernetesObjectApi keeps
// protected and caches per API version.
import { KubernetesObjectApi, type KubeConfig } from '@kubernetes/client-node';

class ResourceDiscovery extends KubernetesObjectApi {
  find(apiVersion: string, kind: string) {
    return this.resource(apiVersion, kind);
  }
}

/** A lookup of a kind's plural; undefined while the kind is not served (a CRD not applied yet). */
export function pluralLookup(kube: KubeConfig): (apiVersion: string, kind: string) => Promise<string | undefined> {
  const discovery = kube.makeApiClient(ResourceDiscovery);
  return async (apiVersion, kind) => (await discovery.find(apiVersion, kind).catch(() => undefined))?.name;
}
