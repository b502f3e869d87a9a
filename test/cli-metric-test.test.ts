// `exp metric test` run as a process, on a Prometheus-backed Metric behind nginx basic auth.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { stringify } from 'yaml';
import { secretsFile } from './support/metric-fixtures.ts';
import { tempDir } from './support/processes.ts';
import { RECENT_LATENCY, startBasicAuthProxy, startPrometheus } from './support/prometheus.ts';

const EXP = new URL('../cli/exp.ts', import.meta.url).pathname;
const PASSWORD = 'Zq9!cli-secret';

const prometheus = await startPrometheus();
t.teardown(prometheus.stop);
const proxy = await startBasicAuthProxy(prometheus.url, 'reader', PASSWORD);
t.teardown(proxy.stop);
const secrets = secretsFile([{ name: 'prom-creds', data: { username: 'reader', password: PASSWORD } }]);
t.teardown(secrets.remove);
const dir = tempDir('cli');
t.teardown(dir.remove);

function metricFile(name: string, spec: Record<string, unknown>): string {
  const path = join(dir.path, `${name}.yaml`);
  writeFileSync(path, stringify({ apiVersion: 'exp.dev/v1alpha1', kind: 'Metric', metadata: { name, namespace: 'shop' }, spec }));
  return path;
}

const latencyFile = metricFile('latency', {
  description: 'Highest request latency over the experiment',
  units: 'ms',
  provider: 'prometheus',
  urlTemplate: `${proxy.url}/api/v1/query`,
  params: [{ name: 'query', value: 'max_over_time(app_request_latency_ms{revision="$revision"}[${elapsedTime}s])' }],
  authType: 'Basic',
  secret: 'prom-creds',
  jqExpression: '.data.result[0].value[1] | tonumber',
});

function exp(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [EXP, ...args], (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }));
  });
}

t.test('exp metric test: prints the request with secrets masked, the reply, and the value', async (t) => {
  const run = await exp(['metric', 'test', '-f', latencyFile, '--secret', secrets.path, '--version', 'canary', '--var', 'revision=v2', '--elapsed-seconds', '600']);
  t.equal(run.code, 0, run.stderr);
  const lines = run.stdout.split('\n');
  t.equal(lines[0], 'Metric     shop/latency (Gauge, prometheus)');
  t.equal(lines[1], 'Version    canary (revision=v2, elapsedTime=600)');
  t.equal(lines[2], `Request    GET ${proxy.url}/api/v1/query?query=max_over_time%28app_request_latency_ms%7Brevision%3D%22v2%22%7D%5B600s%5D%29`);
  t.ok(lines.includes('           Authorization: Basic ****'), 'the Authorization header is shown masked');
  t.match(run.stdout, /\nReply      HTTP 200 in \d+ ms, \d+ bytes\n {11}\{"status":"success","data":\{"resultType":"vector","result":\[\{"metric":\{"revision":"v2"\}/);
  t.equal(lines.at(-2), `Value      ${RECENT_LATENCY.v2} ms`);
  t.notOk(run.stdout.includes(PASSWORD) || run.stdout.includes(Buffer.from(`reader:${PASSWORD}`).toString('base64')));
});

t.test('exp metric test -o json: one object whose value is the number', async (t) => {
  const run = await exp(['metric', 'test', '-f', latencyFile, '--secret', secrets.path, '--var', 'revision=v1', '-o', 'json']);
  t.equal(run.code, 0, run.stderr);
  const report = JSON.parse(run.stdout);
  t.equal(report.value, RECENT_LATENCY.v1);
  t.equal(report.metric, 'shop/latency');
  t.equal(report.version, 'baseline');
  t.equal(report.reply.status, 200);
  t.equal(report.request.headers.Authorization, 'Basic ****');
  t.notOk('unavailable' in report);
});

t.test('exp metric test: unavailable exits 1 with the reason', async (t) => {
  const wrong = secretsFile([{ name: 'prom-creds', data: { username: 'reader', password: 'wrong-password' } }]);
  t.teardown(wrong.remove);
  const run = await exp(['metric', 'test', '-f', latencyFile, '--secret', wrong.path, '--var', 'revision=v1', '-o', 'json']);
  t.equal(run.code, 1);
  const report = JSON.parse(run.stdout);
  t.match(report.unavailable, /^HTTP 401 from 127\.0\.0\.1:\d+: <html>/);
  t.notOk('value' in report);
  const text = await exp(['metric', 'test', '-f', latencyFile, '--var', 'revision=v1']);
  t.equal(text.code, 1);
  t.equal(text.stdout.trim().split('\n').at(-1), 'Unavailable  secret shop/prom-creds: pass it with --secret FILE');
});

t.test('exp metric test: bad input exits 2 and says what is wrong', async (t) => {
  const invalid = metricFile('invalid', { urlTemplate: `${proxy.url}/api/v1/query`, method: 'PUT', jqExpresion: '.x' });
  const cases: [string[], RegExp][] = [
    [['-f', join(dir.path, 'missing.yaml')], /cannot read .*missing\.yaml: ENOENT/],
    [['-f', invalid], /Metric "invalid" in .*invalid\.yaml is invalid:\n {2}spec\.jqExpresion: unknown field\n {2}spec\.method: Unsupported value: "PUT": supported values: "GET", "POST"\n {2}spec: Required value: set urlTemplate and jqExpression, or mock\n$/],
    [['-f', latencyFile, '--var', 'revision'], /--var must be KEY=VALUE, not "revision"/],
    [['-f', latencyFile, '--elapsed-seconds', 'ten'], /--elapsed-seconds must be a whole number of seconds, not "ten"/],
    [['-f', latencyFile, '--secret', join(dir.path, 'nope.yaml')], /cannot read secret file .*nope\.yaml: ENOENT/],
    [['-f', latencyFile, '--bogus'], /Unknown option '--bogus'/],
    [[], /-f METRIC\.yaml is required/],
  ];
  for (const [args, message] of cases) {
    const run = await exp(['metric', 'test', ...args]);
    t.equal(run.code, 2, args.join(' '));
    t.match(run.stderr, message, args.join(' '));
    t.equal(run.stdout, '');
  }
});
