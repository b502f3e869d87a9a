// The resource types the API server serves: built-in kinds, and custom resources registered from
// CustomResourceDefinitions at run time.
import {
  schemaValidator,
  type CustomResourceDefinition,
  type FieldError,
  type Schema,
  type SchemaCheck,
} from '../../shared/kube/crd-schema.ts';
import { AGE_COLUMN, type Column, type KubeObject } from './table.ts';

export interface ResourceType {
  group: string;
  /** Served versions; the first is the preferred one. */
  versions: string[];
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  categories: string[];
  namespaced: boolean;
  statusSubresource: boolean;
  /** Custom resources: JSON merge and JSON patch only, and metadata.generation counts spec changes. */
  custom: boolean;
  columns: (version: string) => Column[];
  /** Prunes, defaults and validates an object written through `version`. */
  check: (version: string, object: KubeObject) => SchemaCheck<KubeObject>;
  /** Normalizes a built-in object the way its API does on write (a Secret's stringData, say). */
  normalize?: (object: KubeObject) => FieldError[];
  schema?: (version: string) => Schema | undefined;
}

export function typeKey(group: string, plural: string): string {
  return `${group}/${plural}`;
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** The name rule of most kinds (a DNS subdomain), worded as the API server words it. */
export function nameErrors(name: string | undefined): FieldError[] {
  if (!name) return [{ field: 'metadata.name', detail: 'Required value: name or generateName is required' }];
  if (name.length > 253 || !DNS_SUBDOMAIN.test(name)) {
    return [
      {
        field: 'metadata.name',
        detail:
          `Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', ` +
          `and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is ` +
          `'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      },
    ];
  }
  return [];
}

function crdType(crd: CustomResourceDefinition): ResourceType {
  const { spec } = crd;
  const served = spec.versions.filter((version) => version.served);
  const storage = spec.versions.find((version) => version.storage) ?? served[0];
  const byName = new Map(spec.versions.map((version) => [version.name, version]));
  const validators = new Map<string, (object: unknown) => SchemaCheck<KubeObject>>();
  const permissive: Schema = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  return {
    group: spec.group,
    versions: [storage.name, ...served.map((version) => version.name).filter((name) => name !== storage.name)],
    kind: spec.names.kind,
    listKind: spec.names.listKind ?? `${spec.names.kind}List`,
    plural: spec.names.plural,
    singular: spec.names.singular ?? spec.names.kind.toLowerCase(),
    shortNames: spec.names.shortNames ?? [],
    categories: spec.names.categories ?? [],
    namespaced: spec.scope === 'Namespaced',
    statusSubresource: Boolean(storage.subresources?.status),
    custom: true,
    columns: (version) => {
      const columns = byName.get(version)?.additionalPrinterColumns;
      return columns?.length ? columns : [AGE_COLUMN];
    },
    check: (version, object) => {
      let validate = validators.get(version);
      if (!validate) validators.set(version, (validate = schemaValidator<KubeObject>(byName.get(version)?.schema?.openAPIV3Schema ?? permissive)));
      const checked = validate(object);
      return { ...checked, errors: [...nameErrors(object.metadata?.name), ...checked.errors] };
    },
    schema: (version) => byName.get(version)?.schema?.openAPIV3Schema,
  };
}

export class Registry {
  private readonly types = new Map<string, ResourceType>();
  /** CRD name → the type it registered. */
  private readonly fromCrds = new Map<string, string>();

  constructor(builtins: ResourceType[]) {
    for (const type of builtins) this.types.set(typeKey(type.group, type.plural), type);
  }

  all(): ResourceType[] {
    return [...this.types.values()];
  }

  find(group: string, version: string, plural: string): ResourceType | undefined {
    const type = this.types.get(typeKey(group, plural));
    return type?.versions.includes(version) ? type : undefined;
  }

  /** Serves (or re-serves, after a change) the resource a CRD defines. */
  registerCrd(crd: CustomResourceDefinition): void {
    this.unregisterCrd(crd.metadata.name);
    const type = crdType(crd);
    const key = typeKey(type.group, type.plural);
    this.types.set(key, type);
    this.fromCrds.set(crd.metadata.name, key);
  }

  /** Stops serving a CRD's resource; returns its key so that its objects can be removed. */
  unregisterCrd(name: string): string | undefined {
    const key = this.fromCrds.get(name);
    if (key) {
      this.types.delete(key);
      this.fromCrds.delete(name);
    }
    return key;
  }
}

/** What is wrong with a CRD, in the API server's words (the checks this server relies on). */
export function crdErrors(crd: CustomResourceDefinition): FieldError[] {
  const errors: FieldError[] = [];
  const spec = crd.spec ?? ({} as CustomResourceDefinition['spec']);
  if (!spec.group) errors.push({ field: 'spec.group', detail: 'Required value' });
  if (!spec.names?.plural) errors.push({ field: 'spec.names.plural', detail: 'Required value' });
  if (!spec.names?.kind) errors.push({ field: 'spec.names.kind', detail: 'Required value' });
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') {
    errors.push({ field: 'spec.scope', detail: `Unsupported value: ${JSON.stringify(spec.scope)}: supported values: "Cluster", "Namespaced"` });
  }
  if (spec.group && spec.names?.plural && crd.metadata?.name !== `${spec.names.plural}.${spec.group}`) {
    errors.push({ field: 'metadata.name', detail: `Invalid value: "${crd.metadata?.name}": must be spec.names.plural+"."+spec.group` });
  }
  if (!spec.versions?.length) errors.push({ field: 'spec.versions', detail: 'Invalid value: null: must have exactly one version marked as storage version' });
  else if (spec.versions.filter((version) => version.storage).length !== 1) {
    errors.push({ field: 'spec.versions', detail: 'Invalid value: ...: must have exactly one version marked as storage version' });
  }
  return errors;
}
