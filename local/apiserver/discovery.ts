// Discovery documents (/api, /apis, /apis/<group>/<version>) and the OpenAPI v3 documents that
// kubectl reads to learn that this server validates fields itself (fieldValidation).
import { createHash } from 'node:crypto';
import type { ResourceType } from './registry.ts';

export const SERVER_VERSION = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-01-01T00:00:00Z',
  goVersion: 'go1.23.0',
  compiler: 'gc',
  platform: 'linux/amd64',
};

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export function groupVersions(types: ResourceType[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const type of types) {
    const versions = groups.get(type.group) ?? [];
    for (const version of type.versions) if (!versions.includes(version)) versions.push(version);
    groups.set(type.group, versions);
  }
  return groups;
}

export function apiVersions(serverAddress: string) {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

function apiGroup(name: string, versions: string[]) {
  const entries = versions.map((version) => ({ groupVersion: `${name}/${version}`, version }));
  return { kind: 'APIGroup', apiVersion: 'v1', name, versions: entries, preferredVersion: entries[0] };
}

export function apiGroupList(types: ResourceType[]) {
  const groups = [...groupVersions(types).entries()].filter(([name]) => name !== '').sort(([a], [b]) => a.localeCompare(b));
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups.map(([name, versions]) => apiGroup(name, versions)) };
}

export function apiGroupDocument(types: ResourceType[], group: string) {
  const versions = groupVersions(types).get(group);
  return versions ? apiGroup(group, versions) : undefined;
}

export function apiResourceList(types: ResourceType[], group: string, version: string) {
  const served = types.filter((type) => type.group === group && type.versions.includes(version));
  if (!served.length) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group ? `${group}/${version}` : version,
    resources: served.flatMap((type) => [
      {
        name: type.plural,
        singularName: type.singular,
        namespaced: type.namespaced,
        kind: type.kind,
        verbs: VERBS,
        ...(type.shortNames.length ? { shortNames: type.shortNames } : {}),
        ...(type.categories.length ? { categories: type.categories } : {}),
      },
      ...(type.statusSubresource ? [{ name: `${type.plural}/status`, singularName: '', namespaced: type.namespaced, kind: type.kind, verbs: ['get', 'patch', 'update'] }] : []),
    ]),
  };
}

function groupVersionPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

/** The OpenAPI v3 document of one group version: its paths, with the PATCH operations and their parameters. */
export function openApiDocument(types: ResourceType[], group: string, version: string) {
  const served = types.filter((type) => type.group === group && type.versions.includes(version));
  if (!served.length) return undefined;
  const parameters = ['dryRun', 'fieldManager', 'fieldValidation', 'force'].map((name) => ({
    name,
    in: 'query',
    schema: { type: name === 'force' ? 'boolean' : 'string', uniqueItems: true },
  }));
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  for (const type of served) {
    const gvk = { group, version, kind: type.kind };
    const base = `/${groupVersionPath(group, version)}${type.namespaced ? '/namespaces/{namespace}' : ''}/${type.plural}/{name}`;
    const patch = {
      operationId: `patch${type.kind}`,
      'x-kubernetes-action': 'patch',
      'x-kubernetes-group-version-kind': gvk,
      parameters,
      requestBody: { content: { 'application/merge-patch+json': { schema: { type: 'object' } } }, required: true },
      responses: { '200': { description: 'OK' } },
    };
    paths[base] = { patch };
    if (type.statusSubresource) paths[`${base}/status`] = { patch: { ...patch, operationId: `patch${type.kind}Status` } };
    const schema = type.schema?.(version);
    if (schema) schemas[`${group ? group.split('.').reverse().join('.') : 'io.k8s.api.core'}.${version}.${type.kind}`] = { ...schema, 'x-kubernetes-group-version-kind': [gvk] };
  }
  return { openapi: '3.0.0', info: { title: 'Kubernetes', version: SERVER_VERSION.gitVersion }, paths, components: { schemas } };
}

/** The OpenAPI v3 index: one document per group version, under a hash that changes with its content. */
export function openApiIndex(types: ResourceType[]) {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const [group, versions] of groupVersions(types)) {
    for (const version of versions) {
      const path = groupVersionPath(group, version);
      const hash = createHash('sha256').update(JSON.stringify(openApiDocument(types, group, version))).digest('hex').slice(0, 32).toUpperCase();
      paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${hash}` };
    }
  }
  return { paths };
}
