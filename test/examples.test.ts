// Every Metric and Experiment in examples/ is valid as the API server would check it; a Metric's
// request can be built, and an Experiment passes the checks that need no cluster.
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import { parseAllDocuments } from 'yaml';
import { formatFieldError } from '../shared/kube/crd-schema.ts';
import { checkMetric, checkResource } from '../shared/kube/crds.ts';
import { specProblems } from '../shared/experiment/validate-experiment.ts';
import { buildRequest } from '../shared/metrics/build-request.ts';
import { secretData, secretRef } from '../shared/metrics/secret-source.ts';

const dir = new URL('../examples/metrics/', import.meta.url);

for (const file of readdirSync(dir).filter((name) => name.endsWith('.yaml'))) {
  t.test(`examples: ${file}`, async (t) => {
    const objects = parseAllDocuments(readFileSync(new URL(file, dir), 'utf8')).map((document) => document.toJS());
    const [metric] = objects.filter((object) => object.kind === 'Metric');
    t.ok(metric, 'holds a Metric');
    const checked = checkMetric(metric);
    t.same(checked.errors.map(formatFieldError), [], 'valid under the CRD schema');
    t.same(checked.unknownFields, [], 'no unknown fields');
    const { spec } = checked.object;
    if (spec.mock) return;
    const secrets = objects.filter((object) => object.kind === 'Secret');
    const ref = spec.secret ? secretRef(spec.secret, metric.metadata.namespace) : undefined;
    const secret = secrets.find((candidate) => candidate.metadata.name === ref?.name && candidate.metadata.namespace === ref?.namespace);
    t.equal(Boolean(secret), Boolean(spec.secret), 'the secret it names is in the file');
    const built = buildRequest(spec, { version: { name: 'canary', variables: { revision: 'shop-v2', deployment: 'shop-canary' } }, elapsedSeconds: 300 }, secret && { ref: `${ref!.namespace}/${ref!.name}`, data: secretData(secret) });
    t.same(built.ok ? 'built' : built.reason, 'built', 'its request can be built');
  });
}

const experiments = new URL('../examples/experiments/', import.meta.url);

for (const file of readdirSync(experiments).filter((name) => name.endsWith('.yaml'))) {
  t.test(`examples: ${file}`, async (t) => {
    const objects = parseAllDocuments(readFileSync(new URL(file, experiments), 'utf8')).map((document) => document.toJS());
    for (const object of objects) {
      const checked = object.kind === 'Experiment' ? checkResource('experiment.yaml', object) : checkMetric(object);
      t.same(checked.errors.map(formatFieldError), [], `${object.kind} ${object.metadata.name} is valid under the CRD schema`);
      t.same(checked.unknownFields, [], 'no unknown fields');
      if (object.kind === 'Experiment') t.same(specProblems(checked.object.spec as never), [], 'the spec needs nothing fixed');
    }
  });
}
