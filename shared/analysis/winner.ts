// Who wins (DESIGN section 4), by testing pattern.
import type { MetricValues } from './objectives.ts';

export type TestingPattern = 'Conformance' | 'Canary' | 'A/B' | 'A/B/n';

export interface Reward {
  metric: string;
  preferredDirection: 'High' | 'Low';
}

export interface WinnerAssessment {
  winnerFound: boolean;
  winner?: string;
  /** The versions tied for best; the winner alone when there is one. */
  bestVersions: string[];
}

const none: WinnerAssessment = { winnerFound: false, bestVersions: [] };
const won = (winner: string): WinnerAssessment => ({ winnerFound: true, winner, bestVersions: [winner] });

/**
 * Feasible versions ranked by the rewards: the first decides, the next break ties. A feasible
 * version without a value for a reward, or a tie on all of them, gives no winner.
 */
function byReward(feasible: string[], rewards: Reward[], values: MetricValues): WinnerAssessment {
  let best = feasible;
  for (const reward of rewards) {
    const scores = best.map((version) => values[reward.metric]?.[version]);
    if (scores.some((score) => !score || !('value' in score))) return none;
    const numbers = scores.map((score) => (score as { value: number }).value);
    const top = reward.preferredDirection === 'High' ? Math.max(...numbers) : Math.min(...numbers);
    best = best.filter((_, index) => numbers[index] === top);
    if (best.length === 1) return won(best[0]);
  }
  return { winnerFound: false, bestVersions: best.length > 1 ? best : [] };
}

/** `versions` in order: the baseline first, then the candidates. */
export function assessWinner(pattern: TestingPattern, versions: string[], feasible: Record<string, boolean>, rewards: Reward[], values: MetricValues): WinnerAssessment {
  const [baseline, ...candidates] = versions;
  const baselineOr = () => (feasible[baseline] ? won(baseline) : none);
  switch (pattern) {
    case 'Conformance':
      return baselineOr();
    case 'Canary':
      return feasible[candidates[0]] ? won(candidates[0]) : baselineOr();
    case 'A/B':
    case 'A/B/n': {
      if (rewards.length) {
        const eligible = versions.filter((version) => feasible[version]);
        return eligible.length ? byReward(eligible, rewards, values) : none;
      }
      const first = candidates.find((candidate) => feasible[candidate]);
      return first ? won(first) : baselineOr();
    }
  }
}

/** The version to promote: the winner, else the baseline. */
export function recommendedVersion(versions: string[], assessment: WinnerAssessment): string {
  return assessment.winner ?? versions[0];
}
