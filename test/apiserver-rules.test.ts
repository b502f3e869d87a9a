// The API server's rules as pure functions: selectors, patches, printing, RBAC, and the store's
// resourceVersions and history.
import t from 'tap';
import { applyJsonPatch, mergePatch, strategicMergePatch } from '../local/apiserver/patch.ts';
import { rbacAllows, serviceAccountUser, type RbacObjects } from '../local/apiserver/rbac.ts';
import { fieldSelector, labelSelector } from '../local/apiserver/selectors.ts';
import type { ApiError } from '../local/apiserver/status.ts';
import { Store } from '../local/apiserver/store.ts';
import { humanDuration, toTable } from '../local/apiserver/table.ts';

t.test('label selectors: equality, sets and existence', async (t) => {
  const labels = { app: 'shop', tier: 'web', 'exp.dev/version': 'v2' };
  const cases: [string, boolean][] = [
    ['app=shop', true],
    ['app==shop', true],
    ['app!=shop', false],
    ['app=shop,tier=db', false],
    ['tier in (web, api)', true],
    ['tier notin (web)', false],
    ['missing notin (x)', true],
    ['exp.dev/version', true],
    ['!exp.dev/version', false],
    ['!legacy,app in (shop)', true],
    ['', true],
  ];
  for (const [selector, expected] of cases) t.equal(labelSelector(selector)(labels), expected, selector);
  t.equal(labelSelector('app')(undefined), false);
  const error = t.throws(() => labelSelector('bad key!=x')) as ApiError;
  t.match(error.status, { code: 400, message: 'unable to parse requirement: invalid label key "bad key!=x"' });
});

t.test('field selectors: any dotted path, = and !=', async (t) => {
  const event = { metadata: { name: 'e1', namespace: 'shop' }, involvedObject: { kind: 'Experiment', name: 'canary' } };
  t.equal(fieldSelector('involvedObject.kind=Experiment,involvedObject.name=canary')(event), true);
  t.equal(fieldSelector('metadata.namespace!=shop')(event), false);
  t.equal(fieldSelector('involvedObject.uid=')(event), true, 'a missing field is the empty string');
  const error = t.throws(() => fieldSelector('nonsense')) as ApiError;
  t.match(error.status, { code: 400, reason: 'BadRequest' });
});

t.test('merge patch (RFC 7386): objects merge, null deletes, lists are replaced', async (t) => {
  t.same(mergePatch({ a: 1, b: { c: 2, d: 3 }, l: [1, 2] }, { b: { c: null, e: 4 }, l: [3], f: 'x' }), { a: 1, b: { d: 3, e: 4 }, l: [3], f: 'x' });
  t.same(mergePatch({ a: 1 }, [1]), [1]);
});

t.test('JSON patch (RFC 6902): operations; a failed test is 422, a malformed patch 400', async (t) => {
  t.same(applyJsonPatch({ a: [1] }, [{ op: 'add', path: '/a/-', value: 2 }, { op: 'add', path: '/b', value: 3 }]), { a: [1, 2], b: 3 });
  const failed = t.throws(() => applyJsonPatch({ a: 1 }, [{ op: 'test', path: '/a', value: 2 }])) as ApiError;
  t.match(failed.status, { code: 422, reason: 'Invalid', message: 'the JSON patch could not be applied: test failed for /a' });
  const malformed = t.throws(() => applyJsonPatch({ a: 1 }, [{ op: 'bogus', path: '/a' }])) as ApiError;
  t.equal(malformed.status.code, 400);
});

t.test('strategic merge patch: merge keys, $patch directives, set-merged finalizers', async (t) => {
  const secretOwner = { metadata: { ownerReferences: [{ uid: '1', name: 'a' }, { uid: '2', name: 'b' }], finalizers: ['x'] }, data: { k: 'v' } };
  t.same(
    strategicMergePatch(secretOwner, {
      metadata: { ownerReferences: [{ uid: '2', name: 'B' }, { uid: '3', name: 'c' }], finalizers: ['y', 'x'], '$setElementOrder/ownerReferences': [{ uid: '2' }] },
      data: { $patch: 'replace', n: 'w' },
    }),
    { metadata: { ownerReferences: [{ uid: '1', name: 'a' }, { uid: '2', name: 'B' }, { uid: '3', name: 'c' }], finalizers: ['x', 'y'] }, data: { n: 'w' } },
  );
  t.same(strategicMergePatch({ metadata: { ownerReferences: [{ uid: '1' }] } }, { metadata: { ownerReferences: [{ uid: '1', $patch: 'delete' }] } }), {
    metadata: { ownerReferences: [] },
  });
  t.same(strategicMergePatch({ metadata: { finalizers: ['a', 'b'] } }, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } }), { metadata: { finalizers: ['b'] } });
  t.same(strategicMergePatch({ rules: [{ verbs: ['get'] }] }, { rules: [{ verbs: ['list'] }] }), { rules: [{ verbs: ['list'] }] }, 'lists without a merge key are replaced');
});

t.test('printing: ages read like kubectl, columns come from JSONPath', async (t) => {
  const seconds = (s: number) => humanDuration(s * 1000);
  t.same([seconds(0), seconds(119), seconds(125), seconds(600), seconds(3 * 3600 + 60), seconds(50 * 3600), seconds(800 * 86400)], ['0s', '119s', '2m5s', '10m', '3h1m', '2d2h', '2y70d']);
  const now = new Date('2026-01-01T00:10:00Z');
  const object = { metadata: { name: 'm', creationTimestamp: '2026-01-01T00:00:00Z' }, spec: { n: 2.7 }, status: { conditions: [{ type: 'A', status: 'x' }, { type: 'Ready', status: 'True' }] } };
  const table = toTable(
    [object],
    [
      { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
      { name: 'N', type: 'integer', jsonPath: '.spec.n' },
      { name: 'Missing', type: 'string', jsonPath: '.spec.nope' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
    '7',
    'Metadata',
    now,
  );
  t.same(table.rows[0].cells, ['m', 'True', 2, null, '10m']);
  t.same(table.columnDefinitions.map((column) => column.name), ['Name', 'Ready', 'N', 'Missing', 'Age']);
  t.same(table.rows[0].object, { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object.metadata });
});

t.test('RBAC: bindings grant a role\'s rules to their subjects, in their namespace', async (t) => {
  const user = serviceAccountUser('exp-system', 'exp-analytics');
  const rbac: RbacObjects = {
    roles: [{ metadata: { namespace: 'shop', name: 'local' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['*'] }] }],
    clusterRoles: [{ metadata: { name: 'reader' }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['creds'] }] }],
    roleBindings: [
      { metadata: { namespace: 'shop' }, subjects: [{ kind: 'ServiceAccount', name: 'exp-analytics', namespace: 'exp-system' }], roleRef: { kind: 'ClusterRole', name: 'reader' } },
      { metadata: { namespace: 'shop' }, subjects: [{ kind: 'Group', name: 'system:serviceaccounts:exp-system' }], roleRef: { kind: 'Role', name: 'local' } },
    ],
    clusterRoleBindings: [],
  };
  const can = (verb: string, resource: string, namespace: string, name?: string) => rbacAllows(user, { verb, group: '', resource, namespace, name }, rbac);
  t.equal(can('get', 'secrets', 'shop', 'creds'), true);
  t.equal(can('get', 'secrets', 'shop', 'other'), false, 'resourceNames limit the rule');
  t.equal(can('list', 'secrets', 'shop'), false);
  t.equal(can('get', 'secrets', 'payments', 'creds'), false, 'a RoleBinding grants in its own namespace only');
  t.equal(can('delete', 'configmaps', 'shop'), true, 'group subjects and wildcard verbs');
  t.equal(rbacAllows(serviceAccountUser('other', 'sa'), { verb: 'get', group: '', resource: 'secrets', namespace: 'shop', name: 'creds' }, rbac), false);
});

t.test('store: resourceVersions grow, and watches resume from history or get 410', async (t) => {
  const store = new Store({ historySize: 3 });
  const object = (name: string) => ({ metadata: { name, namespace: 'shop' } });
  const versions = ['a', 'b', 'c', 'd'].map((name) => Number(store.put('g/things', object(name)).metadata.resourceVersion));
  t.same(versions, [1, 2, 3, 4]);
  const seen: string[] = [];
  const stop = store.subscribe(2, (change) => seen.push(`${change.type} ${change.object.metadata.name} ${change.rv}`));
  store.remove('g/things', 'shop', 'a');
  stop();
  t.same(seen, ['ADDED c 3', 'ADDED d 4', 'DELETED a 5']);
  const error = t.throws(() => store.subscribe(1, () => {})) as ApiError;
  t.same(error.status, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'too old resource version: 1 (2)', reason: 'Expired', code: 410 });
});
