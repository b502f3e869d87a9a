// Checks an object against a CRD's openAPIV3Schema as the API server does: prune unknown fields,
// apply defaults, validate; errors read like the API server's ("spec.method: Unsupported value").
// JSON Schema itself is ajv's job; this file maps the Kubernetes dialect of OpenAPI v3 onto it.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

export type Schema = {
  type?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  required?: string[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  pattern?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean | number;
  exclusiveMaximum?: boolean | number;
  nullable?: boolean;
  default?: unknown;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  [keyword: string]: unknown;
};

export interface FieldError {
  /** The field's path, as `spec.params[0].name`. */
  field: string;
  /** What is wrong, as the API server words it: "Required value", "Unsupported value: …". */
  detail: string;
}

export interface SchemaCheck<T> {
  /** A copy of the object, pruned and defaulted. */
  object: T;
  errors: FieldError[];
  /** Fields the schema does not know, which the API server drops (or refuses under strict field validation). */
  unknownFields: string[];
}

export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  format?: string;
  priority?: number;
}

export interface CustomResourceDefinition {
  metadata: { name: string };
  spec: {
    group: string;
    scope: 'Namespaced' | 'Cluster';
    names: { kind: string; listKind?: string; plural: string; singular?: string; shortNames?: string[]; categories?: string[] };
    versions: {
      name: string;
      served: boolean;
      storage: boolean;
      schema?: { openAPIV3Schema: Schema };
      subresources?: { status?: object; scale?: object };
      additionalPrinterColumns?: PrinterColumn[];
    }[];
  };
}

/** Formats the API server knows; those ajv-formats lacks are accepted as they come. */
const KUBERNETES_ONLY_FORMATS = ['int32', 'int64', 'float', 'double', 'byte', 'password', 'cidr', 'mac', 'quantity'];

const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: false, verbose: true });
addFormats.default(ajv);
for (const format of KUBERNETES_ONLY_FORMATS) ajv.addFormat(format, true);

/** The schema as ajv's JSON Schema: OpenAPI v3.0 writes exclusive bounds as booleans beside minimum/maximum, JSON Schema as numbers. */
function toJsonSchema(schema: Schema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === 'properties') {
      out.properties = Object.fromEntries(Object.entries(value as Record<string, Schema>).map(([name, child]) => [name, toJsonSchema(child)]));
    } else if (keyword === 'items' || (keyword === 'additionalProperties' && typeof value === 'object')) {
      out[keyword] = toJsonSchema(value as Schema);
    } else if (keyword === 'anyOf' || keyword === 'oneOf' || keyword === 'allOf') {
      out[keyword] = (value as Schema[]).map(toJsonSchema);
    } else if (keyword !== 'exclusiveMinimum' && keyword !== 'exclusiveMaximum') {
      out[keyword] = value;
    }
  }
  // The API server reads int-or-string as the type ["integer", "string"]; without a type ajv would take anything.
  if (schema['x-kubernetes-int-or-string'] && !schema.type) out.type = ['integer', 'string'];
  if (schema.exclusiveMinimum === true && schema.minimum !== undefined) {
    delete out.minimum;
    out.exclusiveMinimum = schema.minimum;
  }
  if (schema.exclusiveMaximum === true && schema.maximum !== undefined) {
    delete out.maximum;
    out.exclusiveMaximum = schema.maximum;
  }
  return out;
}

export function storageSchema(crd: CustomResourceDefinition, version?: string): Schema {
  const served = crd.spec.versions.find((v) => (version ? v.name === version : v.storage));
  if (!served?.schema) throw new Error(`CRD ${crd.spec.names.plural}.${crd.spec.group} has no schema for version ${version ?? '(storage)'}`);
  return served.schema.openAPIV3Schema;
}

const ROOT_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

/**
 * Removes fields the schema does not declare, and returns their paths. Like the API server, it keeps
 * undeclared fields under x-kubernetes-preserve-unknown-fields but still prunes inside the declared
 * ones there, and drops a null the schema does not allow (`env:` with nothing after it in YAML)
 * instead of refusing it, or puts the default in its place.
 */
function prune(value: unknown, schema: Schema, path: string, unknown: string[]): void {
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    if (schema.items) value.forEach((item, index) => prune(item, schema.items!, `${path}[${index}]`, unknown));
    return;
  }
  const object = value as Record<string, unknown>;
  for (const key of Object.keys(object)) {
    // The API server handles apiVersion, kind and metadata itself.
    if (path === '' && ROOT_FIELDS.has(key)) continue;
    const child = schema.properties?.[key] ?? (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
    const childPath = path ? `${path}.${key}` : key;
    if (child && object[key] === null && !child.nullable) {
      if (child.default === undefined) delete object[key];
      else object[key] = structuredClone(child.default);
    } else if (child) prune(object[key], child, childPath, unknown);
    else if (!schema['x-kubernetes-preserve-unknown-fields'] && schema.additionalProperties !== true) {
      unknown.push(childPath);
      delete object[key];
    }
  }
}

export function schemaValidator<T = unknown>(schema: Schema): (object: unknown) => SchemaCheck<T> {
  let validate: ValidateFunction | undefined;
  return (input) => {
    validate ??= ajv.compile(toJsonSchema(schema));
    const object = structuredClone(input);
    const unknownFields: string[] = [];
    prune(object, schema, '', unknownFields);
    validate(object);
    const errors = (validate.errors ?? []).filter((error) => !/\/(anyOf|oneOf)\/\d+\//.test(error.schemaPath)).map(fieldError);
    return { object: object as T, errors, unknownFields };
  };
}

function fieldPath(instancePath: string): string {
  return instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, segment) => (/^\d+$/.test(segment) ? `${path}[${segment}]` : path ? `${path}.${segment}` : segment), '');
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (Number.isInteger(value)) return 'integer';
  return typeof value;
}

function fieldError(error: ErrorObject): FieldError {
  const field = fieldPath(error.instancePath);
  const value = error.data;
  const shown = JSON.stringify(value);
  const inBody = `${field || '<root>'} in body`;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { field: field ? `${field}.${params.missingProperty}` : String(params.missingProperty), detail: 'Required value' };
    case 'anyOf':
    case 'oneOf': {
      const branches = (error.parentSchema?.[error.keyword] ?? []) as Schema[];
      if (branches.every((branch) => Object.keys(branch).every((key) => key === 'required'))) {
        const alternatives = branches.map((branch) => branch.required!.join(' and ')).join(', or ');
        return { field: field || '<root>', detail: `Required value: set ${alternatives}` };
      }
      return { field: field || '<root>', detail: `Invalid value: ${shown}: ${inBody} must validate ${error.keyword === 'anyOf' ? 'at least one' : 'exactly one'} schema (${error.keyword})` };
    }
    case 'type':
      return { field, detail: `Invalid value: "${typeName(value)}": ${inBody} must be of type ${params.type}: "${typeName(value)}"` };
    case 'enum':
      return { field, detail: `Unsupported value: ${shown}: supported values: ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` };
    case 'pattern':
      return { field, detail: `Invalid value: ${shown}: ${inBody} should match '${params.pattern}'` };
    case 'minLength':
      return { field, detail: `Invalid value: ${shown}: ${inBody} should be at least ${params.limit} chars long` };
    case 'maxLength':
      return { field, detail: `Too long: may not be longer than ${params.limit}` };
    case 'minimum':
      return { field, detail: `Invalid value: ${shown}: ${inBody} should be greater than or equal to ${params.limit}` };
    case 'maximum':
      return { field, detail: `Invalid value: ${shown}: ${inBody} should be less than or equal to ${params.limit}` };
    case 'exclusiveMinimum':
      return { field, detail: `Invalid value: ${shown}: ${inBody} should be greater than ${params.limit}` };
    case 'exclusiveMaximum':
      return { field, detail: `Invalid value: ${shown}: ${inBody} should be less than ${params.limit}` };
    case 'minItems':
      return { field, detail: `Invalid value: ${(value as unknown[]).length}: ${inBody} should have at least ${params.limit} items` };
    case 'maxItems':
      return { field, detail: `Too many: ${(value as unknown[]).length}: must have at most ${params.limit} items` };
    case 'format':
      return { field, detail: `Invalid value: ${shown}: ${inBody} must be of type ${params.format}: ${shown}` };
    default:
      return { field, detail: `Invalid value: ${shown}: ${error.message}` };
  }
}

export function formatFieldError(error: FieldError): string {
  return `${error.field}: ${error.detail}`;
}
