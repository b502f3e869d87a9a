// The project's CRDs (crds/*.yaml), read at run time so that there is one source for the schemas.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { schemaValidator, storageSchema, type CustomResourceDefinition, type SchemaCheck } from './crd-schema.ts';
import type { Experiment, Metric } from './resources.ts';

const CRD_DIR = new URL('../../crds/', import.meta.url);

type CrdFile = 'metric.yaml' | 'experiment.yaml';
interface Kinds {
  'metric.yaml': Metric;
  'experiment.yaml': Experiment;
}

export function readCrd(file: CrdFile): CustomResourceDefinition {
  return parse(readFileSync(new URL(file, CRD_DIR), 'utf8')) as CustomResourceDefinition;
}

const checks = new Map<CrdFile, (object: unknown) => SchemaCheck<unknown>>();

/** The object as the API server would store it (pruned, defaulted), with what it would refuse. */
export function checkResource<F extends CrdFile>(file: F, object: unknown): SchemaCheck<Kinds[F]> {
  let check = checks.get(file);
  if (!check) checks.set(file, (check = schemaValidator(storageSchema(readCrd(file)))));
  return check(object) as SchemaCheck<Kinds[F]>;
}

export function checkMetric(object: unknown): SchemaCheck<Metric> {
  return checkResource('metric.yaml', object);
}
