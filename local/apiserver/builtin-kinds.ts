// The built-in kinds served: their names, printer columns, and the checks and normalization their
// APIs apply on write (a subset: enough for what the project and its users create).
import { schemaValidator, type FieldError, type Schema } from '../../shared/kube/crd-schema.ts';
import { crdErrors, nameErrors, type ResourceType } from './registry.ts';
import { AGE_COLUMN, type Column, type KubeObject } from './table.ts';
import type { CustomResourceDefinition } from '../../shared/kube/crd-schema.ts';

const open = (schema: Schema): Schema => ({ ...schema, 'x-kubernetes-preserve-unknown-fields': true });
const string: Schema = { type: 'string' };
const strings: Schema = { type: 'array', items: string };

const SCHEMAS: Record<string, Schema> = {
  secrets: open({ type: 'object', properties: { type: string, data: { type: 'object', additionalProperties: string }, stringData: { type: 'object', additionalProperties: string } } }),
  configmaps: open({ type: 'object', properties: { data: { type: 'object', additionalProperties: string }, binaryData: { type: 'object', additionalProperties: string } } }),
  events: open({
    type: 'object',
    required: ['involvedObject'],
    properties: { involvedObject: open({ type: 'object' }), reason: string, message: string, type: string, count: { type: 'integer' } },
  }),
  roles: open({
    type: 'object',
    properties: { rules: { type: 'array', items: open({ type: 'object', required: ['verbs'], properties: { apiGroups: strings, resources: strings, verbs: strings, resourceNames: strings } }) } },
  }),
  rolebindings: open({
    type: 'object',
    required: ['roleRef'],
    properties: {
      roleRef: { type: 'object', required: ['apiGroup', 'kind', 'name'], properties: { apiGroup: string, kind: { type: 'string', enum: ['Role', 'ClusterRole'] }, name: string } },
      subjects: {
        type: 'array',
        items: open({ type: 'object', required: ['kind', 'name'], properties: { kind: { type: 'string', enum: ['User', 'Group', 'ServiceAccount'] }, name: string, namespace: string, apiGroup: string } }),
      },
    },
  }),
};
SCHEMAS.clusterroles = SCHEMAS.roles;
SCHEMAS.clusterrolebindings = structuredClone(SCHEMAS.rolebindings);
(SCHEMAS.clusterrolebindings.properties!.roleRef.properties!.kind as Schema).enum = ['ClusterRole'];

function builtin(
  definition: Pick<ResourceType, 'group' | 'kind' | 'plural' | 'namespaced'> &
    Partial<Pick<ResourceType, 'shortNames' | 'categories' | 'statusSubresource' | 'normalize' | 'custom' | 'check'>> & { columns?: Column[] },
): ResourceType {
  const validate = schemaValidator<KubeObject>(SCHEMAS[definition.plural] ?? open({ type: 'object' }));
  return {
    versions: ['v1'],
    listKind: `${definition.kind}List`,
    singular: definition.kind.toLowerCase(),
    shortNames: [],
    categories: [],
    statusSubresource: false,
    custom: false,
    check: (_version, object) => {
      const checked = validate(object);
      return { ...checked, errors: [...nameErrors(object.metadata?.name), ...checked.errors] };
    },
    ...definition,
    columns: () => definition.columns ?? [AGE_COLUMN],
  };
}

const count = (object: KubeObject, field: string) => Object.keys((object[field] as object | undefined) ?? {}).length;

/** stringData is write-only: the API server folds it into data, base64-encoded. */
function normalizeSecret(secret: KubeObject): FieldError[] {
  const data = { ...((secret.data as Record<string, string> | undefined) ?? {}) };
  for (const [key, value] of Object.entries((secret.stringData as Record<string, string> | undefined) ?? {})) {
    data[key] = Buffer.from(value, 'utf8').toString('base64');
  }
  delete secret.stringData;
  secret.data = data;
  secret.type ??= 'Opaque';
  return Object.entries(data).flatMap(([key, value]) =>
    /^[A-Za-z0-9+/]*={0,2}$/.test(value) && value.length % 4 === 0
      ? []
      : [{ field: `data[${key}]`, detail: `Invalid value: "<secret contents redacted>": illegal base64 data` }],
  );
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function normalizeNamespace(namespace: KubeObject): FieldError[] {
  namespace.spec = { finalizers: ['kubernetes'] };
  namespace.status = { phase: 'Active' };
  const name = namespace.metadata.name ?? '';
  return name.length <= 63 && DNS_LABEL.test(name)
    ? []
    : [{ field: 'metadata.name', detail: `Invalid value: "${name}": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')` }];
}

function normalizeCrd(crd: KubeObject): FieldError[] {
  return crdErrors(crd as unknown as CustomResourceDefinition);
}

const createdAt: Column = { name: 'Created At', type: 'date', format: 'date-time', value: (object) => object.metadata.creationTimestamp ?? null };

export const BUILTIN_KINDS: ResourceType[] = [
  builtin({
    group: '',
    kind: 'Namespace',
    plural: 'namespaces',
    namespaced: false,
    shortNames: ['ns'],
    statusSubresource: true,
    normalize: normalizeNamespace,
    columns: [{ name: 'Status', type: 'string', jsonPath: '.status.phase' }, AGE_COLUMN],
  }),
  builtin({
    group: '',
    kind: 'Secret',
    plural: 'secrets',
    namespaced: true,
    normalize: normalizeSecret,
    columns: [
      { name: 'Type', type: 'string', jsonPath: '.type' },
      { name: 'Data', type: 'integer', value: (object) => count(object, 'data') },
      AGE_COLUMN,
    ],
  }),
  builtin({
    group: '',
    kind: 'ConfigMap',
    plural: 'configmaps',
    namespaced: true,
    shortNames: ['cm'],
    columns: [{ name: 'Data', type: 'integer', value: (object) => count(object, 'data') + count(object, 'binaryData') }, AGE_COLUMN],
  }),
  builtin({ group: '', kind: 'ServiceAccount', plural: 'serviceaccounts', namespaced: true, shortNames: ['sa'] }),
  builtin({
    group: '',
    kind: 'Event',
    plural: 'events',
    namespaced: true,
    shortNames: ['ev'],
    columns: [
      { name: 'Last Seen', type: 'date', jsonPath: '.lastTimestamp' },
      { name: 'Type', type: 'string', jsonPath: '.type' },
      { name: 'Reason', type: 'string', jsonPath: '.reason' },
      {
        name: 'Object',
        type: 'string',
        value: (object) => {
          const involved = object.involvedObject as { kind?: string; name?: string } | undefined;
          return `${(involved?.kind ?? '').toLowerCase()}/${involved?.name ?? ''}`;
        },
      },
      { name: 'Message', type: 'string', jsonPath: '.message' },
    ],
  }),
  builtin({ group: 'rbac.authorization.k8s.io', kind: 'Role', plural: 'roles', namespaced: true, columns: [createdAt] }),
  builtin({ group: 'rbac.authorization.k8s.io', kind: 'ClusterRole', plural: 'clusterroles', namespaced: false, columns: [createdAt] }),
  ...(['RoleBinding', 'ClusterRoleBinding'] as const).map((kind) =>
    builtin({
      group: 'rbac.authorization.k8s.io',
      kind,
      plural: `${kind.toLowerCase()}s`,
      namespaced: kind === 'RoleBinding',
      columns: [
        {
          name: 'Role',
          type: 'string',
          value: (object) => {
            const ref = object.roleRef as { kind?: string; name?: string } | undefined;
            return `${ref?.kind}/${ref?.name}`;
          },
        },
        AGE_COLUMN,
      ],
    }),
  ),
  builtin({
    group: 'apiextensions.k8s.io',
    kind: 'CustomResourceDefinition',
    plural: 'customresourcedefinitions',
    namespaced: false,
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    statusSubresource: true,
    normalize: normalizeCrd,
    columns: [createdAt],
  }),
];
