// The analysis rules of DESIGN section 4, as pure functions.
import t from 'tap';
import { assessVersions, describeObjective, feasibility, holds, type MetricValues } from '../shared/analysis/objectives.ts';
import { allTo, nextWeights, normalizeWeights, type Weights } from '../shared/analysis/weights.ts';
import { assessWinner, recommendedVersion } from '../shared/analysis/winner.ts';

const limits = { maxCandidateWeight: 100, maxCandidateWeightIncrement: 10 };
const w = (...pairs: [string, number][]): Weights => pairs.map(([name, value]) => ({ name, value }));
const sum = (weights: Weights) => weights.reduce((total, weight) => total + weight.value, 0);

t.test('objectives: a value within the inclusive limits holds; unavailable does not', async (t) => {
  t.equal(holds({ metric: 'm', upperLimit: 10 }, { value: 10 }), true);
  t.equal(holds({ metric: 'm', upperLimit: 10 }, { value: 10.0001 }), false);
  t.equal(holds({ metric: 'm', lowerLimit: 0.9, upperLimit: 1 }, { value: 0.9 }), true);
  t.equal(holds({ metric: 'm', lowerLimit: 0.9 }, { value: 0.89 }), false);
  t.equal(holds({ metric: 'm', upperLimit: 10 }, { unavailable: 'HTTP 500' }), false);
  t.equal(holds({ metric: 'm', upperLimit: 10 }, undefined), false);
  t.equal(describeObjective({ metric: 'latency', upperLimit: 500 }), 'latency <= 500');
  t.equal(describeObjective({ metric: 'availability', lowerLimit: 0.9, upperLimit: 1 }), '0.9 <= availability <= 1');
});

t.test('objectives: a version is feasible when all hold, and every version is with none', async (t) => {
  const values: MetricValues = { latency: { v1: { value: 120 }, v2: { value: 90 } }, errors: { v1: { value: 0.001 }, v2: { unavailable: 'timeout' } } };
  const assessed = assessVersions(['v1', 'v2'], [{ metric: 'latency', upperLimit: 100 }, { metric: 'errors', upperLimit: 0.01 }], values);
  t.same(assessed, { v1: [false, true], v2: [true, false] });
  t.same(feasibility(assessed), { v1: false, v2: false });
  t.same(feasibility(assessVersions(['v1', 'v2'], [], values)), { v1: true, v2: true });
});

t.test('winner: conformance and canary', async (t) => {
  t.same(assessWinner('Conformance', ['v1'], { v1: true }, [], {}), { winnerFound: true, winner: 'v1', bestVersions: ['v1'] });
  t.same(assessWinner('Conformance', ['v1'], { v1: false }, [], {}), { winnerFound: false, bestVersions: [] });
  t.same(assessWinner('Canary', ['v1', 'v2'], { v1: true, v2: true }, [], {}).winner, 'v2', 'the candidate if feasible');
  t.same(assessWinner('Canary', ['v1', 'v2'], { v1: true, v2: false }, [], {}).winner, 'v1', 'else the baseline if feasible');
  t.same(assessWinner('Canary', ['v1', 'v2'], { v1: false, v2: false }, [], {}).winnerFound, false);
});

t.test('winner: A/B and A/B/n by reward; a tie or a missing reward gives none', async (t) => {
  const versions = ['v1', 'v2', 'v3', 'v4'];
  const feasible = { v1: true, v2: true, v3: false, v4: true };
  const revenue: MetricValues = { revenue: { v1: { value: 10 }, v2: { value: 30 }, v3: { value: 99 }, v4: { value: 20 } } };
  t.same(assessWinner('A/B/n', versions, feasible, [{ metric: 'revenue', preferredDirection: 'High' }], revenue), { winnerFound: true, winner: 'v2', bestVersions: ['v2'] }, 'the infeasible v3 does not count');
  t.equal(assessWinner('A/B/n', versions, feasible, [{ metric: 'revenue', preferredDirection: 'Low' }], revenue).winner, 'v1');
  const tie: MetricValues = { revenue: { v1: { value: 30 }, v2: { value: 30 }, v4: { value: 20 } } };
  t.same(assessWinner('A/B/n', versions, feasible, [{ metric: 'revenue', preferredDirection: 'High' }], tie), { winnerFound: false, bestVersions: ['v1', 'v2'] });
  const broken = { latency: { v1: { value: 5 }, v2: { value: 3 }, v4: { value: 9 } }, ...tie };
  t.equal(
    assessWinner('A/B/n', versions, feasible, [{ metric: 'revenue', preferredDirection: 'High' }, { metric: 'latency', preferredDirection: 'Low' }], broken).winner,
    'v2',
    'the next reward breaks a tie',
  );
  const missing: MetricValues = { revenue: { v1: { value: 10 }, v2: { unavailable: 'HTTP 503' }, v4: { value: 20 } } };
  t.same(assessWinner('A/B/n', versions, feasible, [{ metric: 'revenue', preferredDirection: 'High' }], missing), { winnerFound: false, bestVersions: [] });
});

t.test('winner: A/B without a reward is the first feasible candidate, else the baseline', async (t) => {
  t.equal(assessWinner('A/B', ['v1', 'v2'], { v1: true, v2: true }, [], {}).winner, 'v2');
  t.equal(assessWinner('A/B/n', ['v1', 'v2', 'v3'], { v1: true, v2: false, v3: true }, [], {}).winner, 'v3');
  t.equal(assessWinner('A/B', ['v1', 'v2'], { v1: true, v2: false }, [], {}).winner, 'v1');
  t.equal(recommendedVersion(['v1', 'v2'], { winnerFound: false, bestVersions: [] }), 'v1', 'no winner: the baseline is recommended');
});

t.test('weights: a feasible candidate target gains at most one increment, never past the maximum', async (t) => {
  let weights = allTo(['v1', 'v2'], 'v1');
  const seen: number[] = [];
  for (let i = 0; i < 8; i++) {
    weights = nextWeights(weights, { target: 'v2', feasible: { v1: true, v2: true } }, { maxCandidateWeight: 45, maxCandidateWeightIncrement: 20 });
    seen.push(weights[1].value);
    t.equal(sum(weights), 100);
  }
  t.same(seen, [20, 40, 45, 45, 45, 45, 45, 45]);
});

t.test('weights: an infeasible candidate drops to 0 at once; others that are not the target lose one increment', async (t) => {
  const verdict = { target: 'v3', feasible: { v1: true, v2: false, v3: true, v4: true } };
  t.same(nextWeights(w(['v1', 40], ['v2', 25], ['v3', 10], ['v4', 25]), verdict, limits), w(['v1', 65], ['v2', 0], ['v3', 20], ['v4', 15]));
  t.same(nextWeights(w(['v1', 70], ['v2', 30]), { target: 'v1', feasible: { v1: true, v2: true } }, limits), w(['v1', 80], ['v2', 20]), 'toward the baseline');
  t.same(nextWeights(w(['v1', 0], ['v2', 100]), { target: 'v2', feasible: { v1: true, v2: true } }, { maxCandidateWeight: 80, maxCandidateWeightIncrement: 10 }), w(['v1', 20], ['v2', 80]), 'above the maximum: back to it');
});

t.test('weights: whatever the routing objects hold is made whole first', async (t) => {
  t.same(normalizeWeights(w(['v1', 12], ['v2', 33.4], ['v3', 80])), w(['v1', 0], ['v2', 33], ['v3', 67]));
  t.same(normalizeWeights(w(['v1', 90], ['v2', 0])), w(['v1', 100], ['v2', 0]));
  t.same(allTo(['v1', 'v2', 'v3'], 'v2'), w(['v1', 0], ['v2', 100], ['v3', 0]));
});
