// Generates shared/kube/crd-types.ts from the CRDs in crds/, so the TypeScript types of the
// resources are the CRD schemas. `npm run generate:crd-types` rewrites the file;
// test/crd-types.test.ts fails when it is out of date.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { compile, type JSONSchema } from 'json-schema-to-typescript';
import { parse } from 'yaml';

export const CRD_DIR = new URL('../../crds/', import.meta.url);
export const TYPES_FILE = new URL('../../shared/kube/crd-types.ts', import.meta.url);

type Schema = Record<string, unknown> & { properties?: Record<string, Schema>; items?: Schema };

/** What each schema node became, so that a node YAML aliases (&version, *version) stays one type. */
const converted = new WeakMap<Schema, Schema>();

/** Maps the Kubernetes dialect of OpenAPI v3 onto what the generator understands. */
function forTypescript(schema: Schema): Schema {
  const known = converted.get(schema);
  if (known) return known;
  const out: Schema = { ...schema };
  converted.set(schema, out);
  if (schema['x-kubernetes-preserve-unknown-fields'] && !schema.type) out.tsType = 'unknown';
  if (schema['x-kubernetes-int-or-string']) out.tsType = 'number | string';
  // anyOf/oneOf that only list required fields constrain values, not types.
  for (const junctor of ['anyOf', 'oneOf'] as const) {
    const branches = schema[junctor] as Schema[] | undefined;
    if (branches?.every((branch) => Object.keys(branch).every((key) => key === 'required'))) delete out[junctor];
  }
  if (schema.type === 'object' && schema.properties) {
    out.additionalProperties = Boolean(schema['x-kubernetes-preserve-unknown-fields']);
    out.properties = Object.fromEntries(Object.entries(schema.properties).map(([name, child]) => [name, forTypescript(child)]));
  } else if (schema.type === 'object' && !schema.additionalProperties) {
    out.tsType = 'Record<string, unknown>';
  }
  if (schema.items) out.items = forTypescript(schema.items);
  return out;
}

export async function generateCrdTypes(): Promise<string> {
  const files = readdirSync(CRD_DIR).filter((name) => name.endsWith('.yaml')).sort();
  const chunks = [
    '// Generated from crds/*.yaml by test/support/generate-crd-types.ts; do not edit.\n' +
      '// Run `npm run generate:crd-types` after changing a CRD.\n',
  ];
  for (const file of files) {
    const crd = parse(readFileSync(new URL(file, CRD_DIR), 'utf8'));
    const kind: string = crd.spec.names.kind;
    const [version] = crd.spec.versions.filter((v: { storage: boolean }) => v.storage);
    const root: Schema = version.schema.openAPIV3Schema;
    for (const part of ['spec', 'status'] as const) {
      const schema = root.properties?.[part];
      if (!schema) continue;
      const name = `${kind}${part === 'spec' ? 'Spec' : 'Status'}`;
      const ts = await compile(forTypescript({ ...schema, title: name }) as JSONSchema, name, {
        bannerComment: '',
        additionalProperties: false,
        maxItems: -1,
        strictIndexSignatures: true,
        format: true,
        style: { singleQuote: true, printWidth: 120 },
      });
      chunks.push(ts.trim() + '\n');
    }
  }
  return chunks.join('\n');
}

if (import.meta.main) {
  writeFileSync(TYPES_FILE, await generateCrdTypes());
  console.log(`wrote ${TYPES_FILE.pathname}`);
}
