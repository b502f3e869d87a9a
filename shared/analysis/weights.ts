// Progressive traffic (DESIGN section 4): each iteration moves weights toward the target (the
// winner, else the baseline). Pure integer arithmetic: weights always sum to 100.

export interface Weight {
  name: string;
  value: number;
}

/** Weights in version order: the baseline first, then the candidates. */
export type Weights = Weight[];

export interface WeightLimits {
  maxCandidateWeight: number;
  maxCandidateWeightIncrement: number;
}

export interface Verdict {
  /** The version traffic moves toward. */
  target: string;
  /** Whether each version meets every objective. */
  feasible: Record<string, boolean>;
}

/** The weights as found, made whole: integers in 0..100, the baseline holding what the candidates leave. */
export function normalizeWeights(weights: Weights): Weights {
  const [baseline, ...candidates] = weights;
  let left = 100;
  const fixed = candidates.map(({ name, value }) => {
    const taken = Math.min(left, Math.max(0, Math.round(value)));
    left -= taken;
    return { name, value: taken };
  });
  return [{ name: baseline.name, value: left }, ...fixed];
}

/**
 * One step toward the target: an infeasible candidate drops to 0 at once; another candidate that
 * is not the target loses at most one increment; the target candidate gains at most one increment
 * and never passes maxCandidateWeight. The baseline takes and gives the difference.
 */
export function nextWeights(current: Weights, verdict: Verdict, limits: WeightLimits): Weights {
  const [baseline, ...candidates] = normalizeWeights(current);
  const step = limits.maxCandidateWeightIncrement;
  let base = baseline.value;
  const next = candidates.map(({ name, value }) => {
    let kept = Math.min(value, limits.maxCandidateWeight);
    if (!verdict.feasible[name]) kept = 0;
    else if (name !== verdict.target) kept = Math.max(0, kept - step);
    base += value - kept;
    return { name, value: kept };
  });
  const target = next.find((candidate) => candidate.name === verdict.target);
  if (target) {
    const gain = Math.max(0, Math.min(step, limits.maxCandidateWeight - target.value, base));
    target.value += gain;
    base -= gain;
  }
  return [{ name: baseline.name, value: base }, ...next];
}

/** All traffic to one version: the start of a progressive run (the baseline), or a promotion. */
export function allTo(versions: string[], version: string): Weights {
  return versions.map((name) => ({ name, value: name === version ? 100 : 0 }));
}
