import { readFileSync } from 'node:fs';
import t from 'tap';
import { formatFieldError, storageSchema } from '../shared/kube/crd-schema.ts';
import { checkMetric, readCrd } from '../shared/kube/crds.ts';
import { generateCrdTypes, TYPES_FILE } from './support/generate-crd-types.ts';
import { structuralProblems } from './support/structural-schema.ts';

const crd = readCrd('metric.yaml');
const metric = (spec: Record<string, unknown>) => ({ apiVersion: 'exp.dev/v1alpha1', kind: 'Metric', metadata: { name: 'm', namespace: 'shop' }, spec });

t.test('metric CRD: the TypeScript types are generated from it and up to date', async (t) => {
  t.equal(readFileSync(TYPES_FILE, 'utf8'), await generateCrdTypes(), 'run `npm run generate:crd-types` after changing a CRD');
});

t.test('metric CRD: names, scope, status subresource and printer columns', async (t) => {
  t.equal(crd.spec.group, 'exp.dev');
  t.equal(crd.spec.scope, 'Namespaced');
  t.same(crd.spec.names, { kind: 'Metric', listKind: 'MetricList', plural: 'metrics', singular: 'metric', categories: ['exp'] });
  const [version] = crd.spec.versions;
  t.same({ name: version.name, served: version.served, storage: version.storage }, { name: 'v1alpha1', served: true, storage: true });
  t.same(version.subresources, { status: {} });
  t.same(
    version.additionalPrinterColumns?.map((column) => column.name),
    ['Type', 'Provider', 'Ready', 'Age'],
  );
});

t.test('metric CRD: the schema is structural', async (t) => {
  t.same(structuralProblems(storageSchema(crd), '<root>'), []);
});

t.test('metric CRD: defaults are applied', async (t) => {
  const checked = checkMetric(metric({ urlTemplate: 'http://p', jqExpression: '.x' }));
  t.same(checked.errors, []);
  t.same(checked.object.spec, { urlTemplate: 'http://p', jqExpression: '.x', type: 'Gauge', method: 'GET', timeoutSeconds: 10 });
});

t.test('metric CRD: a mock Metric needs no urlTemplate, and levels are numbers or quantities', async (t) => {
  const checked = checkMetric(metric({ mock: [{ name: 'v1', level: 20 }, { name: 'v2', level: '500m' }] }));
  t.same(checked.errors, []);
});

t.test('metric CRD: invalid Metrics get one error per bad field, worded like the API server', async (t) => {
  const checked = checkMetric(
    metric({
      method: 'PUT',
      authType: 'OAuth',
      timeoutSeconds: 0,
      secret: 'Not_A_Name',
      params: [{ name: 'query' }],
      headerTemplates: [{ name: 'bad header', value: 'x' }],
      jqExpresion: '.x',
    }),
  );
  t.same(checked.errors.map(formatFieldError).sort(), [
    `spec.authType: Unsupported value: "OAuth": supported values: "Basic", "APIKey", "Bearer"`,
    `spec.headerTemplates[0].name: Invalid value: "bad header": spec.headerTemplates[0].name in body should match '^[!#$%&'*+.^_\`|~0-9A-Za-z-]+$'`,
    `spec.method: Unsupported value: "PUT": supported values: "GET", "POST"`,
    'spec.params[0].value: Required value',
    `spec.secret: Invalid value: "Not_A_Name": spec.secret in body should match '^([a-z0-9]([-a-z0-9]*[a-z0-9])?/)?[a-z0-9]([-.a-z0-9]*[a-z0-9])?$'`,
    'spec.timeoutSeconds: Invalid value: 0: spec.timeoutSeconds in body should be greater than 0',
    'spec: Required value: set urlTemplate and jqExpression, or mock',
  ]);
  t.same(checked.unknownFields, ['spec.jqExpresion']);
});

t.test('metric CRD: wrong types are named with the type found', async (t) => {
  const checked = checkMetric(metric({ urlTemplate: 'http://p', jqExpression: 3, timeoutSeconds: '5' }));
  t.same(checked.errors.map(formatFieldError).sort(), [
    'spec.jqExpression: Invalid value: "integer": spec.jqExpression in body must be of type string: "integer"',
    'spec.timeoutSeconds: Invalid value: "string": spec.timeoutSeconds in body must be of type number: "string"',
  ]);
});
