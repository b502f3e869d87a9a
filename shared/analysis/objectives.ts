// Objectives and feasibility (DESIGN section 4): an objective holds for a version when its value
// is available and within the inclusive limits; a version is feasible when all hold.

/** A metric's outcome for one version in one iteration. */
export type VersionValue = { value: number } | { unavailable: string };

/** Per metric (by reference), per version. */
export type MetricValues = Record<string, Record<string, VersionValue>>;

export interface Objective {
  metric: string;
  upperLimit?: number;
  lowerLimit?: number;
}

export function holds(objective: Objective, outcome: VersionValue | undefined): boolean {
  if (!outcome || !('value' in outcome)) return false;
  const { value } = outcome;
  return (objective.upperLimit === undefined || value <= objective.upperLimit) && (objective.lowerLimit === undefined || value >= objective.lowerLimit);
}

/** What an objective checks, for people: "latency <= 500", "0.9 <= availability <= 1". */
export function describeObjective(objective: Objective): string {
  const { metric, lowerLimit, upperLimit } = objective;
  if (lowerLimit !== undefined && upperLimit !== undefined) return `${lowerLimit} <= ${metric} <= ${upperLimit}`;
  if (upperLimit !== undefined) return `${metric} <= ${upperLimit}`;
  if (lowerLimit !== undefined) return `${metric} >= ${lowerLimit}`;
  return `${metric} is available`;
}

/** Per version, whether each objective holds, in the objectives' order. */
export function assessVersions(versions: string[], objectives: Objective[], values: MetricValues): Record<string, boolean[]> {
  return Object.fromEntries(versions.map((version) => [version, objectives.map((objective) => holds(objective, values[objective.metric]?.[version]))]));
}

export function feasibility(assessments: Record<string, boolean[]>): Record<string, boolean> {
  return Object.fromEntries(Object.entries(assessments).map(([version, results]) => [version, results.every(Boolean)]));
}
