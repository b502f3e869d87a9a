import t from 'tap';
import type { MetricSpec } from '../shared/kube/resources.ts';
import { buildRequest, secretValuesUsed, USER_AGENT, type QueryContext } from '../shared/metrics/build-request.ts';

const context: QueryContext = { version: { name: 'canary', variables: { revision: 'shop-v2', name: 'override' } }, elapsedSeconds: 125.7 };
const secret = { ref: 'shop/creds', data: { apikey: 'AK-123', username: 'alice', password: 'pa:ss', host: 'metrics.example' } };

t.test('request: GET with params URL-encoded and version placeholders filled', async (t) => {
  const spec: MetricSpec = {
    urlTemplate: 'http://prom:9090/api/v1/query?existing=1',
    params: [
      { name: 'query', value: "sum(rate(x{rev='$revision'}[${elapsedTime}s])) / 2 + 1" },
      { name: 'version', value: '$name' },
    ],
    jqExpression: '.',
  };
  const built = buildRequest(spec, context);
  t.same(built, {
    ok: true,
    value: {
      method: 'GET',
      url: "http://prom:9090/api/v1/query?existing=1&query=sum%28rate%28x%7Brev%3D%27shop-v2%27%7D%5B125s%5D%29%29+%2F+2+%2B+1&version=override",
      headers: { Accept: 'application/json', 'User-Agent': USER_AGENT },
      body: undefined,
    },
  });
});

t.test('request: variables take precedence over name, which comes before elapsedTime', async (t) => {
  const spec: MetricSpec = { urlTemplate: 'http://p/', params: [{ name: 'q', value: '$name $elapsedTime' }], jqExpression: '.' };
  const plain = buildRequest(spec, { version: { name: 'canary', variables: {} }, elapsedSeconds: 0 });
  t.equal(plain.ok && new URL(plain.value.url).searchParams.get('q'), 'canary 1', 'elapsedTime is at least 1');
});

t.test('request: POST sends the substituted body as JSON', async (t) => {
  const spec: MetricSpec = { urlTemplate: 'https://db/query', method: 'POST', body: '{"q": "$revision", "since": $elapsedTime}', jqExpression: '.' };
  const built = buildRequest(spec, context);
  t.same(built.ok && built.value, {
    method: 'POST',
    url: 'https://db/query',
    headers: { Accept: 'application/json', 'User-Agent': USER_AGENT, 'Content-Type': 'application/json' },
    body: '{"q": "shop-v2", "since": 125}',
  });
});

t.test('request: a body that is not JSON after substitution is refused', async (t) => {
  const spec: MetricSpec = { urlTemplate: 'https://db/query', method: 'POST', body: '{"q": $revision}', jqExpression: '.' };
  const built = buildRequest(spec, context);
  t.equal(built.ok, false);
  t.match(!built.ok && built.reason, /^body is not valid JSON after substitution: /);
});

t.test('request: Basic auth from the secret, APIKey through a header template, secret fields in the URL', async (t) => {
  const spec: MetricSpec = {
    urlTemplate: 'https://${host}/v1/query',
    authType: 'Basic',
    secret: 'creds',
    headerTemplates: [{ name: 'X-Query-Key', value: '${apikey}' }],
    jqExpression: '.',
  };
  const built = buildRequest(spec, context, secret);
  t.same(built.ok && built.value.headers, {
    Accept: 'application/json',
    'User-Agent': USER_AGENT,
    Authorization: `Basic ${Buffer.from('alice:pa:ss').toString('base64')}`,
    'X-Query-Key': 'AK-123',
  });
  t.equal(built.ok && built.value.url, 'https://metrics.example/v1/query');
});

t.test('request: a header template replaces a default header whatever its case', async (t) => {
  const spec: MetricSpec = { urlTemplate: 'http://p/', headerTemplates: [{ name: 'accept', value: 'text/plain' }], jqExpression: '.' };
  const built = buildRequest(spec, context);
  t.same(built.ok && built.value.headers, { 'User-Agent': USER_AGENT, accept: 'text/plain' });
});

t.test('request: failures name what is missing', async (t) => {
  const cases: [MetricSpec, string][] = [
    [{ urlTemplate: 'http://p/', params: [{ name: 'q', value: '$nope' }], jqExpression: '.' }, 'params.q: unknown placeholder $nope; known: revision, name, elapsedTime'],
    [{ urlTemplate: 'http://p/?k=${token}', jqExpression: '.' }, 'urlTemplate: placeholder ${token} is filled from a secret, and spec.secret is not set'],
    [{ urlTemplate: 'http://p/', secret: 'creds', headerTemplates: [{ name: 'Authorization', value: 'Bearer ${token}' }], jqExpression: '.' }, 'headerTemplates.Authorization: secret shop/creds has no field "token"'],
    [{ urlTemplate: 'http://p/', authType: 'Basic', secret: 'creds', jqExpression: '.' }, 'authType Basic: secret shop/creds has no field "username"'],
    [{ urlTemplate: 'ftp://p/', jqExpression: '.' }, 'urlTemplate must be an http or https URL, not ftp:'],
    [{ urlTemplate: 'not a url', jqExpression: '.' }, 'urlTemplate does not give a valid URL after substitution'],
    [{ urlTemplate: 'http://p/', secret: 'creds', headerTemplates: [{ name: 'X-Key', value: '${key}' }], jqExpression: '.' }, 'headerTemplates.X-Key: the value has a line break or NUL after substitution'],
  ];
  const secrets = { ref: 'shop/creds', data: { password: 'x', key: 'a\r\nInjected: yes' } };
  for (const [spec, reason] of cases) t.same(buildRequest(spec, context, spec.secret ? secrets : undefined), { ok: false, reason }, reason);
});

t.test('request: the secret values a request can carry are the ones it uses', async (t) => {
  const spec: MetricSpec = { urlTemplate: 'https://${host}/q', headerTemplates: [{ name: 'X-Key', value: '$apikey' }], jqExpression: '.' };
  t.same(secretValuesUsed(spec, secret).sort(), ['AK-123', 'metrics.example']);
  const basic: MetricSpec = { urlTemplate: 'https://p/q', authType: 'Basic', secret: 'creds', jqExpression: '.' };
  t.same(secretValuesUsed(basic, secret), ['alice', 'pa:ss', Buffer.from('alice:pa:ss').toString('base64')]);
});
