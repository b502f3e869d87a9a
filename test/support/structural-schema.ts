// Kubernetes accepts a CRD only if its schemas are structural; the tests check ours before the API
// server (local or real) would refuse them.
import type { Schema } from '../../shared/kube/crd-schema.ts';

const JUNCTORS = ['anyOf', 'oneOf', 'allOf'] as const;

/** The problems that make a schema non-structural: a node without a type, or types and defaults inside anyOf/oneOf/allOf/not. */
export function structuralProblems(schema: Schema, path: string): string[] {
  const problems: string[] = [];
  if (!schema.type && !schema['x-kubernetes-preserve-unknown-fields'] && !schema['x-kubernetes-int-or-string']) problems.push(`${path}: no type`);
  for (const junctor of JUNCTORS) {
    if (schema['x-kubernetes-int-or-string'] && junctor === 'anyOf' && isIntOrStringPattern(schema.anyOf)) continue;
    for (const branch of (schema[junctor] as Schema[] | undefined) ?? []) problems.push(...junctorProblems(branch, `${path}.${junctor}`));
  }
  if (schema.not) problems.push(...junctorProblems(schema.not as Schema, `${path}.not`));
  for (const [name, child] of Object.entries(schema.properties ?? {})) problems.push(...structuralProblems(child, `${path}.${name}`));
  if (schema.items) problems.push(...structuralProblems(schema.items, `${path}[]`));
  if (typeof schema.additionalProperties === 'object') problems.push(...structuralProblems(schema.additionalProperties, `${path}{}`));
  return problems;
}

/** Inside a junctor only value constraints may appear, at any depth. */
function junctorProblems(branch: Schema, path: string): string[] {
  const problems: string[] = [];
  for (const forbidden of ['type', 'default', 'description', 'additionalProperties', 'nullable']) {
    if (forbidden in branch) problems.push(`${path}: ${forbidden} is not allowed`);
  }
  for (const junctor of JUNCTORS) {
    for (const nested of (branch[junctor] as Schema[] | undefined) ?? []) problems.push(...junctorProblems(nested, `${path}.${junctor}`));
  }
  if (branch.not) problems.push(...junctorProblems(branch.not as Schema, `${path}.not`));
  for (const [name, child] of Object.entries(branch.properties ?? {})) problems.push(...junctorProblems(child, `${path}.${name}`));
  if (branch.items) problems.push(...junctorProblems(branch.items, `${path}[]`));
  return problems;
}

/** The one typed junctor Kubernetes allows, on x-kubernetes-int-or-string nodes. */
function isIntOrStringPattern(branches: Schema[] | undefined): boolean {
  return JSON.stringify(branches) === JSON.stringify([{ type: 'integer' }, { type: 'string' }]);
}
