import t from 'tap';
import type { JqOutcome } from '../shared/metrics/jq/jq-outcome.ts';
import { JqPool } from '../shared/metrics/jq/jq-pool.ts';
import { JqRuntime } from '../shared/metrics/jq/jq-runtime.ts';

const input = (value: unknown) => Buffer.from(JSON.stringify(value));
const reply = input({
  status: 'success',
  data: { result: [{ metric: { revision: 'v1' }, value: [1700000000, '42.5'] }] },
  items: [{ name: 'b', n: 3 }, { name: 'a', n: 1 }, { name: 'c', n: 2 }],
  when: '2015-03-05T23:51:47Z',
  text: 'p50=12ms p99=250ms',
});

t.test('jq: real jq 1.7 semantics, builtins and all', async (t) => {
  const runtime = await JqRuntime.create();
  const cases: [string, JqOutcome][] = [
    ['.data.result[0].value[1] | tonumber', { kind: 'number', value: 42.5 }],
    ['[.items[] | .n] | add / length', { kind: 'number', value: 2 }],
    ['.items | min_by(.n) | .n', { kind: 'number', value: 1 }],
    ['.items | sort_by(.name) | map(.n) | .[0]', { kind: 'number', value: 1 }],
    ['reduce .items[] as $i (0; . + $i.n)', { kind: 'number', value: 6 }],
    ['[foreach .items[] as $i (0; . + $i.n)] | last', { kind: 'number', value: 6 }],
    ['.when | strptime("%Y-%m-%dT%H:%M:%SZ") | mktime', { kind: 'number', value: 1425599507 }],
    ['.when | fromdateiso8601', { kind: 'number', value: 1425599507 }],
    ['[.text | scan("p99=(\\\\d+)ms")[0] | tonumber] | first', { kind: 'number', value: 250 }],
    ['.text | capture("p50=(?<v>\\\\d+)") | .v | tonumber', { kind: 'number', value: 12 }],
    ['pick(.data.result[0].value[1]) | .data.result[0].value[1] | tonumber', { kind: 'number', value: 42.5 }],
    ['-5 | abs', { kind: 'number', value: 5 }],
    ['label $out | .items[] | if .n == 3 then .n, break $out else empty end', { kind: 'number', value: 3 }],
    ['.items as [$first, $second] | $second.n', { kind: 'number', value: 1 }],
    ['try error("x") catch 7', { kind: 'number', value: 7 }],
    ['[paths] | length', { kind: 'number', value: 21 }],
    ['"MTIz" | @base64d | tonumber', { kind: 'number', value: 123 }],
    ['getpath(["data","result",0,"value",0])', { kind: 'number', value: 1700000000 }],
    ['$__loc__.line', { kind: 'number', value: 1 }],
    ['1, 2', { kind: 'number', value: 1 }],
    ['.missing', { kind: 'not-a-number', type: 'null', json: 'null' }],
    ['.status', { kind: 'not-a-number', type: 'string', json: '"success"' }],
    ['.items[0].name == "b"', { kind: 'not-a-number', type: 'boolean', json: 'true' }],
    ['empty', { kind: 'no-output' }],
    ['nan', { kind: 'number', value: NaN }],
    ['error("boom")', { kind: 'runtime-error', message: 'boom' }],
    ['.items[0] | tonumber', { kind: 'runtime-error', message: 'object ({"name":"b"...) cannot be parsed as a number' }],
    ['halt', { kind: 'halted' }],
  ];
  for (const [expression, expected] of cases) t.same(runtime.evaluate(expression, reply), expected, expression);
});

t.test('jq: only the first output is computed, so an endless generator still gives a value', async (t) => {
  const runtime = await JqRuntime.create();
  t.same(runtime.evaluate('range(1e12)', reply), { kind: 'number', value: 0 });
  t.same(runtime.evaluate('repeat(1)', reply), { kind: 'number', value: 1 });
});

t.test('jq: the reply must be one JSON object', async (t) => {
  const runtime = await JqRuntime.create();
  t.same(runtime.evaluate('.', Buffer.from('[1,2]')), { kind: 'reply-not-object', type: 'array' });
  t.same(runtime.evaluate('.', Buffer.from('<html>oops</html>')), { kind: 'reply-not-json', message: 'Invalid numeric literal at EOF at line 1, column 17' });
  t.same(runtime.evaluate('.', Buffer.from('{"a": ')), { kind: 'reply-not-json', message: 'Unfinished JSON term at EOF at line 1, column 6' });
});

t.test('jq: compile errors are jq\'s own messages', async (t) => {
  const runtime = await JqRuntime.create();
  t.same(runtime.compile('.a | foo'), { kind: 'compile-error', message: 'foo/0 is not defined at <top-level>, line 1' });
  t.same(runtime.evaluate('.a | (', reply), { kind: 'compile-error', message: 'syntax error, unexpected end of file at <top-level>, line 1' });
  t.same(runtime.compile('.data.result[0]'), { kind: 'compiled' });
});

t.test('jq: each expression is compiled once and reused', async (t) => {
  const runtime = await JqRuntime.create();
  for (let i = 0; i < 500; i++) runtime.evaluate('.data.result[0].value[1] | tonumber', reply);
  runtime.evaluate('.items | length', reply);
  t.equal(runtime.cachedPrograms, 2);
});

t.test('jq: expressions cannot read the process environment', async (t) => {
  process.env.EXP_TEST_TOKEN = 'do-not-leak';
  const pool = new JqPool({ size: 1 });
  t.teardown(() => pool.close());
  const deadline = Date.now() + 10000;
  t.same(await pool.evaluate('env', reply, deadline), { kind: 'not-a-number', type: 'object', json: '{}' });
  t.same(await pool.evaluate('$ENV', reply, deadline), { kind: 'not-a-number', type: 'object', json: '{}' });
  t.same(await pool.evaluate('$ENV.EXP_TEST_TOKEN', reply, deadline), { kind: 'not-a-number', type: 'null', json: 'null' });
  t.same(await pool.evaluate('env.PATH', reply, deadline), { kind: 'not-a-number', type: 'null', json: 'null' });
});

t.test('jq: runaway expressions do not block other queries', async (t) => {
  const pool = new JqPool({ size: 2, extraWorkers: 2 });
  let runawaysEnded = false;
  // More runaways than the pool's usual size, with deadlines far beyond the test.
  const runaways = Promise.all(
    ['last(range(1e12))', '[repeat(1)] | length', 'until(false; .)'].map((expression) => pool.evaluate(expression, reply, Date.now() + 600_000)),
  ).then((outcomes) => {
    runawaysEnded = true;
    return outcomes;
  });
  const values = await Promise.all(Array.from({ length: 50 }, () => pool.evaluate('.data.result[0].value[1] | tonumber', reply, Date.now() + 600_000)));
  t.ok(values.every((outcome) => outcome.kind === 'number' && outcome.value === 42.5), 'the other queries get their values');
  t.notOk(runawaysEnded, 'while the runaways are still running');
  await pool.close();
  t.same(await runaways, Array(3).fill({ kind: 'engine-failure', message: 'jq pool closed' }));
});

t.test('jq: a runaway expression is stopped at its deadline, and the pool goes on', async (t) => {
  const pool = new JqPool({ size: 1 });
  t.teardown(() => pool.close());
  t.same(await pool.evaluate('last(range(1e12))', reply, Date.now() + 1000), { kind: 'timeout' });
  t.same(await pool.evaluate('.items | length', reply, Date.now() + 60_000), { kind: 'number', value: 3 });
});

t.test('jq: an expression that exhausts memory fails alone, and the pool goes on', async (t) => {
  const pool = new JqPool({ size: 1, maxMemoryBytes: 64 * 1024 * 1024 });
  t.teardown(() => pool.close());
  t.same(await pool.evaluate('[range(1e9)] | length', reply, Date.now() + 30000), {
    kind: 'engine-failure',
    message: 'out of memory (the limit is 64 MB)',
  });
  t.same(await pool.evaluate('.items | length', reply, Date.now() + 10000), { kind: 'number', value: 3 });
});

t.test('jq: a pool that is closed answers instead of hanging', async (t) => {
  const pool = new JqPool({ size: 1 });
  const pending = pool.evaluate('last(range(1e12))', reply, Date.now() + 60000);
  await new Promise((resolve) => setTimeout(resolve, 100));
  await pool.close();
  t.same(await pending, { kind: 'engine-failure', message: 'jq pool closed' });
  t.same(await pool.evaluate('1', reply, Date.now() + 1000), { kind: 'engine-failure', message: 'jq pool closed' });
});
