// What keeps an Experiment from starting (on-experiment-apply reports it with stage Failed): the
// versions against the testing pattern, the limits, the metrics it names, the routing fields.
import { parseQuantity } from '../kube/quantity.ts';
import type { ExperimentSpec, Metric } from '../kube/resources.ts';
import { metricProblems, type CompileJq } from '../metrics/validate-metric.ts';
import { deploymentPattern, metricKeys, metricRef, testingPattern, versionsOf, type WeightObjRef } from './experiment.ts';

export interface ExperimentProblem {
  reason: string;
  message: string;
}

const VERSION_COUNTS: Record<string, [number, number, string]> = {
  Conformance: [1, 1, 'exactly 1 version (a baseline, no candidates)'],
  Canary: [2, 2, 'exactly 2 versions (a baseline and 1 candidate)'],
  'A/B': [2, 2, 'exactly 2 versions (a baseline and 1 candidate)'],
  'A/B/n': [3, Infinity, 'more than 2 versions (a baseline and at least 2 candidates)'],
};

/** Problems visible in the spec alone. */
export function specProblems(spec: ExperimentSpec): ExperimentProblem[] {
  const problems: ExperimentProblem[] = [];
  const versions = versionsOf(spec);
  const pattern = testingPattern(spec);
  const [least, most, wanted] = VERSION_COUNTS[pattern];
  if (versions.length < least || versions.length > most) {
    problems.push({ reason: 'InvalidVersions', message: `testing pattern ${pattern} needs ${wanted}; this experiment has ${versions.length}` });
  }
  const names = versions.map((version) => version.name);
  const repeated = [...new Set(names.filter((name, index) => names.indexOf(name) !== index))];
  if (repeated.length) problems.push({ reason: 'InvalidVersions', message: `version names must be unique; repeated: ${repeated.join(', ')}` });
  for (const [index, objective] of (spec.criteria?.objectives ?? []).entries()) {
    for (const limit of ['upperLimit', 'lowerLimit'] as const) {
      if (objective[limit] !== undefined && parseQuantity(objective[limit]) === undefined) {
        problems.push({ reason: 'InvalidObjective', message: `criteria.objectives[${index}].${limit} must be a number or a quantity such as "500m", not ${JSON.stringify(objective[limit])}` });
      }
    }
    if (objective.upperLimit === undefined && objective.lowerLimit === undefined) {
      problems.push({ reason: 'InvalidObjective', message: `criteria.objectives[${index}] (${objective.metric}) needs an upperLimit or a lowerLimit` });
    }
  }
  if (deploymentPattern(spec) !== 'FixedSplit' && versions.length > 1) {
    const without = versions.filter((version) => !version.weightObjRef).map((version) => version.name);
    if (without.length > 1) {
      problems.push({
        reason: 'InvalidWeightObjRef',
        message: `${deploymentPattern(spec)} moves traffic through weightObjRef: at most one version may omit it (its weight is 100 minus the others); ${without.join(', ')} do`,
      });
    }
  }
  return problems;
}

export interface ReferenceLookups {
  metric: (ref: { namespace: string; name: string }) => Promise<Metric | undefined>;
  compileJq: CompileJq;
  /** Whether the routing field exists (its value, or a reason why not). */
  routingField: (ref: WeightObjRef, namespace: string) => Promise<{ ok: true } | { ok: false; reason: string }>;
}

/** Problems with what the spec refers to: the Metrics (they exist and are valid) and the routing fields. */
export async function referenceProblems(spec: ExperimentSpec, namespace: string, lookups: ReferenceLookups): Promise<{ problems: ExperimentProblem[]; metrics: Record<string, Metric> }> {
  const problems: ExperimentProblem[] = [];
  const metrics: Record<string, Metric> = {};
  for (const key of metricKeys(spec, namespace)) {
    const ref = metricRef(key, namespace);
    const metric = await lookups.metric(ref);
    if (!metric) {
      problems.push({ reason: 'MetricNotFound', message: `Metric ${ref.namespace}/${ref.name} does not exist; create it, then apply the Experiment again` });
      continue;
    }
    const invalid = await metricProblems(metric.spec, lookups.compileJq);
    if (invalid.length) problems.push({ reason: 'MetricNotReady', message: `Metric ${ref.namespace}/${ref.name} is not valid: ${invalid.map((problem) => problem.message).join('; ')}` });
    else metrics[key] = metric;
  }
  if (deploymentPattern(spec) !== 'FixedSplit') {
    for (const version of versionsOf(spec)) {
      if (!version.weightObjRef) continue;
      const found = await lookups.routingField(version.weightObjRef, namespace);
      if (!found.ok) problems.push({ reason: 'InvalidWeightObjRef', message: `version ${version.name}: ${found.reason}` });
    }
  }
  return { problems, metrics };
}
