// The minimal CRDs of the traffic stacks' routing objects (local/stack-crds/) against the real ones
// (../shared/upstream-crds/): they must accept the examples (examples/stacks/) and every weight an
// experiment writes as upstream does, and refuse what upstream refuses at the weights.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { parseAllDocuments } from 'yaml';
import { formatFieldError, schemaValidator, storageSchema, type CustomResourceDefinition, type Schema, type SchemaCheck } from '../shared/kube/crd-schema.ts';
import { structuralProblems } from './support/structural-schema.ts';

type KubeObject = { apiVersion: string; kind: string; metadata: { name: string; namespace: string; annotations?: Record<string, string> }; spec: any };

/** An object set up for an experiment, and where the versions' weights are in it. */
interface Routing {
  object: KubeObject;
  weights: string[];
  /** Whether the CRD bounds the weights to 0..100; elsewhere the stack's admission webhook does. */
  bounded: boolean;
}

interface Stack {
  name: string;
  example: string;
  crd: string;
  upstream: string;
  /** Versions upstream serves that the minimal CRD does not, and why. */
  unserved?: { versions: string[]; why: string };
  /** The example with a third version, for A/B/n, where the stack allows one. */
  abn?: (example: KubeObject) => Routing;
}

const STACKS: Stack[] = [
  {
    name: 'knative',
    example: 'service.yaml',
    crd: 'knative-services.yaml',
    upstream: 'knative-serving-services.serving.knative.dev.yaml',
    abn: (service) => {
      service.spec.traffic.push({ tag: 'candidate-2', revisionName: 'shop-v3', percent: 0 });
      return { object: service, weights: [0, 1, 2].map((index) => `.spec.traffic[${index}].percent`), bounded: false };
    },
  },
  {
    name: 'istio',
    example: 'virtualservice.yaml',
    crd: 'istio-virtualservices.yaml',
    upstream: 'istio-virtualservices.networking.istio.io.yaml',
    abn: (virtualService) => {
      virtualService.spec.http[1].route.push({ destination: { host: 'shop-v3.shop.svc.cluster.local', port: { number: 80 } }, weight: 0 });
      return { object: virtualService, weights: [0, 1, 2].map((index) => `.spec.http[1].route[${index}].weight`), bounded: false };
    },
  },
  {
    name: 'kserve',
    example: 'inferenceservice.yaml',
    crd: 'kserve-inferenceservices.yaml',
    upstream: 'kserve-inferenceservices.serving.kserve.io.yaml',
    // Standard deployment mode: named canaries beside the predictor, which gets the rest.
    abn: (isvc) => {
      const model = (version: string) => ({ name: 'kserve-container', modelFormat: { name: 'sklearn' }, storageUri: `gs://shop-models/iris/${version}` });
      isvc.metadata.annotations = { 'serving.kserve.io/deploymentMode': 'Standard' };
      isvc.spec = {
        predictor: { name: 'iris-v1', model: model('v1') },
        canary: [
          { trafficPercent: 0, predictor: { name: 'iris-v2', model: model('v2') } },
          { trafficPercent: 0, predictor: { name: 'iris-v3', model: model('v3') } },
        ],
      };
      return { object: isvc, weights: ['.spec.canary[0].trafficPercent', '.spec.canary[1].trafficPercent'], bounded: true };
    },
  },
  {
    name: 'kfserving',
    example: 'inferenceservice.yaml',
    crd: 'kfserving-inferenceservices.yaml',
    upstream: 'kfserving-inferenceservices.serving.kubeflow.org.yaml',
    unserved: { versions: ['v1alpha2'], why: 'its schema differs and only the conversion webhook could convert it' },
  },
  {
    name: 'seldon',
    example: 'seldondeployment.yaml',
    crd: 'seldon-seldondeployments.yaml',
    upstream: 'seldon-core-seldondeployments.machinelearning.seldon.io.yaml',
    abn: (deployment) => {
      const v3 = structuredClone(deployment.spec.predictors[1]);
      deployment.spec.predictors.push({ ...v3, name: 'iris-v3', graph: { ...v3.graph, modelUri: 'gs://shop-models/iris/v3' } });
      return { object: deployment, weights: [0, 1, 2].map((index) => `.spec.predictors[${index}].traffic`), bounded: false };
    },
  },
];

/** Splits of 100 an experiment writes, by number of weights: all to one side, all to the other, and in between. */
const SPLITS: Record<number, number[][]> = {
  1: [[0], [37], [100]],
  2: [[100, 0], [37, 63], [0, 100]],
  3: [[100, 0, 0], [20, 17, 63], [0, 0, 100]],
};

const readCrd = (url: URL) => parseAllDocuments(readFileSync(url, 'utf8')).map((document) => document.toJS()).find(Boolean) as CustomResourceDefinition;
const minimalCrd = (stack: Stack) => readCrd(new URL(`../local/stack-crds/${stack.crd}`, import.meta.url));
const upstreamCrd = (stack: Stack) => readCrd(new URL(`../../shared/upstream-crds/${stack.upstream}`, import.meta.url));

function readExample(stack: Stack): Routing {
  const text = readFileSync(new URL(`../examples/stacks/${stack.name}/${stack.example}`, import.meta.url), 'utf8');
  const [document] = parseAllDocuments(text);
  // The opening comment lists one "#   version (role): .field.path" line per version with a weight of its own.
  const comment = text.slice(0, text.search(/^[^#]/m)).split('\n');
  const weights = comment.flatMap((line) => line.match(/^#.*\):\s+(\.\S+)$/)?.[1] ?? []);
  // No stack's CRD bounds the weights of a two-version canary; its admission webhook does.
  return { object: document.toJS(), weights, bounded: false };
}

function routings(stack: Stack): Routing[] {
  const example = readExample(stack);
  return stack.abn ? [example, stack.abn(structuredClone(example.object))] : [example];
}

const validators = new Map<string, (object: unknown) => SchemaCheck<unknown>>();

/** The object as the API server would check it under the minimal and the upstream CRD. */
function checkBoth(stack: Stack, object: KubeObject): { minimal: SchemaCheck<unknown>; upstream: SchemaCheck<unknown> } {
  const version = object.apiVersion.split('/')[1];
  const check = (key: string, crd: () => CustomResourceDefinition) => {
    const id = `${key}/${version}`;
    if (!validators.has(id)) validators.set(id, schemaValidator(storageSchema(crd(), version)));
    return validators.get(id)!(object);
  };
  return { minimal: check(stack.crd, () => minimalCrd(stack)), upstream: check(stack.upstream, () => upstreamCrd(stack)) };
}

function segments(fieldPath: string): (string | number)[] {
  return [...fieldPath.matchAll(/\.([^.[\]]+)|\[(\d+)\]/g)].map(([, key, index]) => (index === undefined ? key : Number(index)));
}

function valueAt(object: unknown, fieldPath: string): unknown {
  return segments(fieldPath).reduce<any>((node, segment) => node?.[segment], object);
}

function schemaAt(schema: Schema, fieldPath: string): Schema | undefined {
  return segments(fieldPath).reduce<Schema | undefined>((node, segment) => (typeof segment === 'number' ? node?.items : node?.properties?.[segment]), schema);
}

function withWeights(object: KubeObject, weights: Record<string, unknown>): KubeObject {
  const copy = structuredClone(object);
  for (const [fieldPath, weight] of Object.entries(weights)) {
    const path = segments(fieldPath);
    const last = path.pop()!;
    path.reduce<any>((node, segment) => node[segment], copy)[last] = weight;
  }
  return copy;
}

const describe = (check: SchemaCheck<unknown>) => ({ errors: check.errors.map(formatFieldError), unknownFields: check.unknownFields });

/** Keywords whose value must be upstream's wherever the minimal schema declares a field. */
const CONSTRAINTS = [
  'type', 'format', 'enum', 'default', 'nullable', 'required', 'pattern', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum',
  'minLength', 'maxLength', 'minItems', 'maxItems', 'anyOf', 'oneOf', 'allOf', 'not', 'x-kubernetes-int-or-string',
  'x-kubernetes-list-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-map-type', 'x-kubernetes-validations',
];

/**
 * Where the minimal schema declares something upstream does not, or constrains a field differently.
 * A field declared only to be kept unchecked (preserved, with nothing declared inside) may leave out
 * upstream's constraints.
 */
function divergences(minimal: Schema, upstream: Schema | undefined, path: string): string[] {
  if (!upstream) return [`${path}: not in the upstream schema`];
  const unchecked = minimal['x-kubernetes-preserve-unknown-fields'] && !minimal.properties && !minimal.items && !minimal.additionalProperties;
  const keywords = unchecked ? CONSTRAINTS.filter((keyword) => keyword in minimal) : CONSTRAINTS;
  const found = keywords.filter((keyword) => JSON.stringify(minimal[keyword]) !== JSON.stringify(upstream[keyword])).map(
    (keyword) => `${path}: ${keyword} is ${JSON.stringify(minimal[keyword])}, upstream ${JSON.stringify(upstream[keyword])}`,
  );
  for (const [name, child] of Object.entries(minimal.properties ?? {})) found.push(...divergences(child, upstream.properties?.[name], `${path}.${name}`));
  if (minimal.items) found.push(...divergences(minimal.items, upstream.items, `${path}[]`));
  if (typeof minimal.additionalProperties === 'object') {
    found.push(...divergences(minimal.additionalProperties, upstream.additionalProperties as Schema | undefined, `${path}{}`));
  }
  return found;
}

const versionSummary = (crd: CustomResourceDefinition) =>
  crd.spec.versions.map((version) => ({
    name: version.name,
    served: version.served,
    storage: version.storage,
    subresources: version.subresources,
    columns: version.additionalPrinterColumns?.map(({ name, type, jsonPath }) => ({ name, type, jsonPath })),
  }));

const oneSchema = (crd: CustomResourceDefinition) => new Set(crd.spec.versions.map((version) => JSON.stringify(version.schema))).size === 1;

for (const stack of STACKS) {
  t.test(`${stack.name}: the minimal CRD's schemas are structural`, async (t) => {
    for (const version of minimalCrd(stack).spec.versions) t.same(structuralProblems(version.schema!.openAPIV3Schema, '<root>'), [], version.name);
  });

  t.test(`${stack.name}: group, names, scope, versions, subresources and printer columns are upstream's`, async (t) => {
    const minimal = minimalCrd(stack);
    const upstream = upstreamCrd(stack);
    t.equal(minimal.metadata.name, upstream.metadata.name);
    t.equal(minimal.spec.group, upstream.spec.group);
    t.same(minimal.spec.names, upstream.spec.names);
    t.equal(minimal.spec.scope, 'Namespaced');
    t.equal(minimal.spec.scope, upstream.spec.scope);
    const served = { ...upstream, spec: { ...upstream.spec, versions: upstream.spec.versions.filter((version) => !stack.unserved?.versions.includes(version.name)) } };
    t.same(versionSummary(minimal), versionSummary(served), stack.unserved ? `all but ${stack.unserved.versions}: ${stack.unserved.why}` : 'all versions');
    t.not((minimal.spec as { conversion?: { strategy: string } }).conversion?.strategy, 'Webhook', 'no conversion webhook runs locally');
    t.ok(oneSchema(served), 'upstream serves one schema in all these versions');
    t.ok(oneSchema(minimal), 'so does the minimal CRD');
  });

  t.test(`${stack.name}: every field the minimal CRD declares has upstream's type and constraints`, async (t) => {
    t.same(divergences(storageSchema(minimalCrd(stack)), storageSchema(upstreamCrd(stack)), '<root>'), []);
  });

  t.test(`${stack.name}: the example is valid here and upstream, with no unknown fields`, async (t) => {
    const example = readExample(stack);
    t.ok(example.weights.length > 0, 'its comment names the fieldPaths of the weights');
    for (const fieldPath of example.weights) t.ok(Number.isInteger(valueAt(example.object, fieldPath)), `${fieldPath} holds an integer weight`);
    const { minimal, upstream } = checkBoth(stack, example.object);
    t.same(describe(minimal), { errors: [], unknownFields: [] }, 'minimal CRD');
    t.same(describe(upstream), { errors: [], unknownFields: [] }, 'upstream CRD');
  });

  t.test(`${stack.name}: the weights an experiment writes are valid here and upstream${stack.abn ? ', for A/B/n too' : ''}`, async (t) => {
    for (const routing of routings(stack)) {
      for (const split of SPLITS[routing.weights.length]) {
        const object = withWeights(routing.object, Object.fromEntries(routing.weights.map((fieldPath, index) => [fieldPath, split[index]])));
        const { minimal, upstream } = checkBoth(stack, object);
        t.same(describe(minimal), { errors: [], unknownFields: [] }, `${split.join('/')} at ${routing.weights.join(', ')}: minimal CRD`);
        t.same(describe(upstream), { errors: [], unknownFields: [] }, `${split.join('/')} at ${routing.weights.join(', ')}: upstream CRD`);
      }
    }
  });

  t.test(`${stack.name}: a string weight is refused, here as upstream`, async (t) => {
    for (const routing of routings(stack)) {
      const fieldPath = routing.weights.at(-1)!;
      const { minimal, upstream } = checkBoth(stack, withWeights(routing.object, { [fieldPath]: '50' }));
      const field = fieldPath.slice(1);
      t.same(describe(minimal).errors, [`${field}: Invalid value: "string": ${field} in body must be of type integer: "string"`]);
      t.same(describe(upstream), describe(minimal));
    }
  });

  t.test(`${stack.name}: a misspelt weight is dropped, here as upstream, where the minimal CRD declares the fields beside the weight`, async (t) => {
    for (const routing of routings(stack)) {
      const fieldPath = routing.weights.at(-1)!;
      const key = String(segments(fieldPath).at(-1));
      const parent = fieldPath.slice(0, -key.length - 1);
      const typo = `${key.slice(0, -2)}${key.at(-1)}`;
      const misspelt = `${parent}.${typo}`;
      const object = structuredClone(routing.object);
      const holder = valueAt(object, parent) as Record<string, unknown>;
      holder[typo] = holder[key];
      delete holder[key];
      const { minimal, upstream } = checkBoth(stack, object);
      t.same(describe(upstream).unknownFields, [misspelt.slice(1)], `${misspelt}: upstream drops it`);
      if (schemaAt(storageSchema(minimalCrd(stack)), parent)?.['x-kubernetes-preserve-unknown-fields']) {
        t.same(describe(minimal).unknownFields, [], `${misspelt}: kept here, beside fields the minimal CRD leaves undeclared`);
      } else {
        t.same(describe(minimal), describe(upstream), `${misspelt}: dropped here too`);
      }
    }
  });

  t.test(`${stack.name}: a weight of 101 or -1 is refused where the CRD bounds it, else left to the stack's webhook, here as upstream`, async (t) => {
    for (const routing of routings(stack)) {
      const fieldPath = routing.weights.at(-1)!;
      const field = fieldPath.slice(1);
      const refusals: Record<number, string> = {
        101: `${field}: Invalid value: 101: ${field} in body should be less than or equal to 100`,
        [-1]: `${field}: Invalid value: -1: ${field} in body should be greater than or equal to 0`,
      };
      for (const weight of [101, -1]) {
        const { minimal, upstream } = checkBoth(stack, withWeights(routing.object, { [fieldPath]: weight }));
        t.same(describe(minimal).errors, routing.bounded ? [refusals[weight]] : [], `${weight} at ${fieldPath}`);
        t.same(describe(upstream), describe(minimal), `${weight} at ${fieldPath}: upstream agrees`);
      }
    }
  });
}

t.test('stacks: the examples are the routing objects of the five stacks, one per file', async (t) => {
  const kinds = STACKS.map((stack) => {
    const documents = parseAllDocuments(readFileSync(new URL(`../examples/stacks/${stack.name}/${stack.example}`, import.meta.url), 'utf8'));
    t.equal(documents.length, 1, stack.example);
    const object = documents[0].toJS() as KubeObject;
    return `${object.apiVersion} ${object.kind}`;
  });
  t.same(kinds, [
    'serving.knative.dev/v1 Service',
    'networking.istio.io/v1 VirtualService',
    'serving.kserve.io/v1beta1 InferenceService',
    'serving.kubeflow.org/v1beta1 InferenceService',
    'machinelearning.seldon.io/v1 SeldonDeployment',
  ]);
});
