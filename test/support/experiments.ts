// Building blocks for experiment tests: Knative Services as routing objects, Metrics on a test
// provider, and Experiments, as objects to create through the API.
import type { ExperimentSpec } from '../../shared/kube/resources.ts';

/** A Knative Service whose traffic splits between `revisions` (the first gets 100 unless `percents` says). */
export function knativeService(namespace: string, name: string, revisions: string[], percents?: number[]) {
  return {
    apiVersion: 'serving.knative.dev/v1',
    kind: 'Service',
    metadata: { name, namespace },
    spec: {
      template: { metadata: { name: revisions.at(-1) }, spec: { containers: [{ image: `registry.example.com/${name}:latest` }] } },
      traffic: revisions.map((revision, index) => ({ revisionName: revision, percent: percents?.[index] ?? (index === 0 ? 100 : 0) })),
    },
  };
}

/** Versions named after the revisions, each weighted through its entry of the Service's traffic. */
export function versionInfo(service: string, revisions: string[]): ExperimentSpec['versionInfo'] {
  const [baseline, ...candidates] = revisions.map((name, index) => ({
    name,
    weightObjRef: { apiVersion: 'serving.knative.dev/v1', kind: 'Service', name: service, fieldPath: `.spec.traffic[${index}].percent` },
  }));
  return { baseline, candidates };
}

export function experiment(namespace: string, name: string, spec: ExperimentSpec) {
  return { apiVersion: 'exp.dev/v1alpha1', kind: 'Experiment', metadata: { name, namespace }, spec };
}

export function metric(namespace: string, name: string, spec: object) {
  return { apiVersion: 'exp.dev/v1alpha1', kind: 'Metric', metadata: { name, namespace }, spec };
}
