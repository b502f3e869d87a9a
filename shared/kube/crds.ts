// The project's CRDs (crds/*.yaml), read at run time so that there is one source for the schemas.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { schemaValidator, storageSchema, type CustomResourceDefinition, type SchemaCheck } from './crd-schema.ts';
import type { Metric } from './resources.ts';

const CRD_DIR = new URL('../../crds/', import.meta.url);

export function readCrd(file: 'metric.yaml'): CustomResourceDefinition {
  return parse(readFileSync(new URL(file, CRD_DIR), 'utf8')) as CustomResourceDefinition;
}

let metricCheck: ((object: unknown) => SchemaCheck<Metric>) | undefined;

/** The Metric as the API server would store it (pruned, defaulted), with what it would refuse. */
export function checkMetric(object: unknown): SchemaCheck<Metric> {
  metricCheck ??= schemaValidator<Metric>(storageSchema(readCrd('metric.yaml')));
  return metricCheck(object);
}
