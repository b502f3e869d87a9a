// Where a Metric's credentials come from: the Kubernetes API in a cluster (shared/kube), a YAML
// file on the command line (cli/).

export interface SecretRef {
  namespace: string;
  name: string;
}

export type SecretRead = { kind: 'found'; data: Record<string, string> } | { kind: 'unavailable'; reason: string };

export interface SecretSource {
  read(ref: SecretRef): Promise<SecretRead>;
}

/** `name` or `namespace/name`; a bare name is in `defaultNamespace`. */
export function secretRef(reference: string, defaultNamespace: string): SecretRef {
  const slash = reference.indexOf('/');
  return slash < 0
    ? { namespace: defaultNamespace, name: reference }
    : { namespace: reference.slice(0, slash), name: reference.slice(slash + 1) };
}

export function formatRef(ref: SecretRef): string {
  return `${ref.namespace}/${ref.name}`;
}

/** A Secret's `data` (base64) decoded, with `stringData` on top as the API server would merge it. */
export function secretData(secret: { data?: Record<string, string>; stringData?: Record<string, string> }): Record<string, string> {
  const data: Record<string, string> = {};
  for (const [key, value] of Object.entries(secret.data ?? {})) data[key] = Buffer.from(value, 'base64').toString('utf8');
  return { ...data, ...secret.stringData };
}
