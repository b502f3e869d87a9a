// Reading an Experiment's spec: its versions, patterns, metrics and durations, with the CRD's
// defaults applied (a spec may come from a file, not only from the API server).
import type { VersionDetail } from '../kube/crd-types.ts';
import type { ExperimentSpec } from '../kube/resources.ts';
import type { TestingPattern } from '../analysis/winner.ts';
import type { WeightLimits } from '../analysis/weights.ts';

export type { VersionDetail };
export type WeightObjRef = NonNullable<VersionDetail['weightObjRef']>;
export type DeploymentPattern = NonNullable<ExperimentSpec['strategy']['deploymentPattern']>;

/** The baseline first, then the candidates. */
export function versionsOf(spec: ExperimentSpec): VersionDetail[] {
  return [spec.versionInfo.baseline, ...(spec.versionInfo.candidates ?? [])];
}

export function versionNames(spec: ExperimentSpec): string[] {
  return versionsOf(spec).map((version) => version.name);
}

export function testingPattern(spec: ExperimentSpec): TestingPattern {
  return spec.strategy.testingPattern === 'A/B/N' ? 'A/B/n' : spec.strategy.testingPattern;
}

export function deploymentPattern(spec: ExperimentSpec): DeploymentPattern {
  return spec.strategy.deploymentPattern ?? 'Progressive';
}

export function weightLimits(spec: ExperimentSpec): WeightLimits {
  return {
    maxCandidateWeight: spec.strategy.weights?.maxCandidateWeight ?? 100,
    maxCandidateWeightIncrement: spec.strategy.weights?.maxCandidateWeightIncrement ?? 10,
  };
}

export function durationOf(spec: ExperimentSpec): { intervalSeconds: number; iterationsPerLoop: number; maxLoops: number } {
  return {
    intervalSeconds: spec.duration?.intervalSeconds ?? 20,
    iterationsPerLoop: spec.duration?.iterationsPerLoop ?? 15,
    maxLoops: spec.duration?.maxLoops ?? 1,
  };
}

export function totalIterations(spec: ExperimentSpec): number {
  const { iterationsPerLoop, maxLoops } = durationOf(spec);
  return iterationsPerLoop * maxLoops;
}

/** A Metric reference (`name` or `namespace/name`) resolved against the experiment's namespace. */
export function metricRef(reference: string, namespace: string): { namespace: string; name: string } {
  const slash = reference.indexOf('/');
  return slash < 0 ? { namespace, name: reference } : { namespace: reference.slice(0, slash), name: reference.slice(slash + 1) };
}

/** How a metric is keyed in the status: its name, or namespace/name when it lives elsewhere. */
export function metricKey(reference: string, namespace: string): string {
  const ref = metricRef(reference, namespace);
  return ref.namespace === namespace ? ref.name : `${ref.namespace}/${ref.name}`;
}

/** Every Metric the experiment fetches (objectives, rewards, requestCount, indicators), each once, by key. */
export function metricKeys(spec: ExperimentSpec, namespace: string): string[] {
  const criteria = spec.criteria ?? {};
  const references = [
    ...(criteria.objectives ?? []).map((objective) => objective.metric),
    ...(criteria.rewards ?? []).map((reward) => reward.metric),
    ...(criteria.requestCount ? [criteria.requestCount] : []),
    ...(criteria.indicators ?? []),
  ];
  return [...new Set(references.map((reference) => metricKey(reference, namespace)))];
}
