import t from 'tap';
import { parseQuantity } from '../shared/kube/quantity.ts';

t.test('quantities: numbers and the strings Iter8 users wrote', async (t) => {
  const cases: [unknown, number][] = [
    [7, 7],
    [0.25, 0.25],
    ['0.01', 0.01],
    ['500m', 0.5],
    ['3m', 0.003],
    ['250u', 0.00025],
    ['1.5k', 1500],
    ['2M', 2e6],
    ['2Ki', 2048],
    ['1Gi', 2 ** 30],
    ['1e3', 1000],
    ['2.5E-2', 0.025],
    ['-3', -3],
    ['+.5', 0.5],
    [' 12 ', 12],
  ];
  for (const [input, expected] of cases) t.equal(parseQuantity(input), expected, JSON.stringify(input));
});

t.test('quantities: anything else is not a number', async (t) => {
  for (const input of ['', 'abc', '5 ms', '1.2.3', '5mm', '1e400', NaN, Infinity, null, true, {}, [1]]) {
    t.equal(parseQuantity(input), undefined, JSON.stringify(input));
  }
});
