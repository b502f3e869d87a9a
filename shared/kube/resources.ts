import type { V1ObjectMeta } from '@kubernetes/client-node';
import type { ExperimentSpec, ExperimentStatus, MetricSpec, MetricStatus } from './crd-types.ts';

export const EXP_GROUP = 'exp.dev';
export const EXP_VERSION = 'v1alpha1';
export const EXP_API_VERSION = `${EXP_GROUP}/${EXP_VERSION}`;

/** A custom resource as the API server returns it; spec and status types come from the CRDs. */
export interface Resource<Spec, Status> {
  apiVersion: string;
  kind: string;
  metadata: V1ObjectMeta;
  spec: Spec;
  status?: Status;
}

export type Metric = Resource<MetricSpec, MetricStatus>;
export type Experiment = Resource<ExperimentSpec, ExperimentStatus>;
export type { ExperimentSpec, ExperimentStatus, MetricSpec, MetricStatus };
