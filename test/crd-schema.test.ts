// The validator treats the Kubernetes extensions of OpenAPI as the API server does.
import t from 'tap';
import { formatFieldError, schemaValidator, type Schema } from '../shared/kube/crd-schema.ts';

const check = (schema: Schema, object: unknown) => {
  const checked = schemaValidator(schema)(object);
  return { object: checked.object, errors: checked.errors.map(formatFieldError), unknownFields: checked.unknownFields };
};

t.test('crd schema: under x-kubernetes-preserve-unknown-fields, undeclared fields are kept and declared ones are still pruned', async (t) => {
  const schema: Schema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        'x-kubernetes-preserve-unknown-fields': true,
        properties: { route: { type: 'array', items: { type: 'object', properties: { weight: { type: 'integer' } } } } },
      },
    },
  };
  t.same(check(schema, { spec: { retries: { attempts: 3 }, route: [{ weight: 50, wieght: 50 }] } }), {
    object: { spec: { retries: { attempts: 3 }, route: [{ weight: 50 }] } },
    errors: [],
    unknownFields: ['spec.route[0].wieght'],
  });
});

t.test('crd schema: a null where the schema allows none is dropped, or defaulted, as the API server decodes it', async (t) => {
  const schema: Schema = {
    type: 'object',
    required: ['name'],
    properties: {
      name: { type: 'string' },
      env: { type: 'array', items: { type: 'object' } },
      mode: { type: 'string', default: 'fast' },
      labels: { type: 'object', additionalProperties: { type: 'string', default: '' } },
      mirrorPercent: { type: 'integer', nullable: true },
    },
  };
  t.same(check(schema, { name: null, env: null, mode: null, labels: { team: null }, mirrorPercent: null }), {
    object: { mode: 'fast', labels: { team: '' }, mirrorPercent: null },
    errors: ['name: Required value'],
    unknownFields: [],
  });
  t.same(check(schema, { name: 'a', env: [null] }).errors, ['env[0]: Invalid value: "null": env[0] in body must be of type object: "null"'], 'not inside lists');
});

t.test('crd schema: x-kubernetes-int-or-string takes an integer or a string, nothing else', async (t) => {
  const schema: Schema = { type: 'object', properties: { port: { 'x-kubernetes-int-or-string': true } } };
  t.same(check(schema, { port: 8080 }).errors, []);
  t.same(check(schema, { port: 'http' }).errors, []);
  t.same(check(schema, { port: true }).errors, ['port: Invalid value: "boolean": port in body must be of type integer,string: "boolean"']);
  t.same(check(schema, { port: 0.5 }).errors, ['port: Invalid value: "number": port in body must be of type integer,string: "number"']);
});

t.test('crd schema: CEL rules (x-kubernetes-validations) are not evaluated, so they refuse nothing', async (t) => {
  const schema: Schema = {
    type: 'object',
    properties: { timeout: { type: 'string', 'x-kubernetes-validations': [{ rule: "duration(self) >= duration('1ms')", message: 'must be at least 1ms' }] } },
  };
  t.same(check(schema, { timeout: '0s' }).errors, []);
});
