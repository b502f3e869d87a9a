// A Kubernetes-API-compatible server on loopback, for `exp local up` and the tests: the real
// kubectl and @kubernetes/client-node use it unchanged. It speaks the REST protocol directly on
// node:https: watch streams, Table negotiation and five patch media types fit no router's model.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import { isDeepStrictEqual } from 'node:util';
import { parse as parseYaml } from 'yaml';
import type { CustomResourceDefinition, FieldError } from '../../shared/kube/crd-schema.ts';
import { BUILTIN_KINDS } from './builtin-kinds.ts';
import { apiGroupDocument, apiGroupList, apiResourceList, apiVersions, openApiDocument, openApiIndex, SERVER_VERSION } from './discovery.ts';
import { applyJsonPatch, mergePatch, strategicMergePatch } from './patch.ts';
import { decodeKubernetesProtobuf } from './protobuf.ts';
import { authorize, type RbacObjects, type User } from './rbac.ts';
import { Registry, type ResourceType } from './registry.ts';
import { fieldSelector, labelSelector } from './selectors.ts';
import {
  alreadyExists,
  ApiError,
  badRequest,
  conflict,
  forbidden,
  internalError,
  invalid,
  methodNotAllowed,
  notFound,
  pathNotFound,
  success,
  unauthorized,
  unsupportedMediaType,
  type Status,
} from './status.ts';
import { resourceKey, Store, type Change } from './store.ts';
import { toTable, type IncludeObject, type KubeObject } from './table.ts';
import type { TlsIdentity } from './tls.ts';

export interface ApiServerOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  dataDir?: string;
  /** Bearer token → user. */
  users: Map<string, User>;
  /** Objects created at start when missing (namespaces, the service account, stack CRDs…). */
  bootstrap?: KubeObject[];
  tls: TlsIdentity;
}

interface Target {
  type: ResourceType;
  group: string;
  version: string;
  namespace?: string;
  name?: string;
  subresource?: string;
}

type Json = Parameters<typeof mergePatch>[0];

interface DeleteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
}

const MAX_BODY_BYTES = 3 * 1024 * 1024;
/** kubectl's typed commands (create namespace, create secret…) send protobuf; answers are JSON. */
const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'];

export class ApiServer {
  readonly store: Store;
  readonly registry = new Registry(BUILTIN_KINDS);
  private readonly users: Map<string, User>;
  private readonly http: Server;
  private readonly watches = new Set<ServerResponse>();
  url = '';

  private constructor(options: ApiServerOptions) {
    this.users = options.users;
    this.store = new Store({ dataDir: options.dataDir });
    for (const crd of this.store.list(resourceKey('apiextensions.k8s.io', 'customresourcedefinitions'))) {
      this.registry.registerCrd(crd as unknown as CustomResourceDefinition);
    }
    for (const object of options.bootstrap ?? []) this.bootstrap(object);
    this.http = createServer({ key: options.tls.privateKey, cert: options.tls.certificate }, (req, res) => void this.handle(req, res));
  }

  static async start(options: ApiServerOptions): Promise<ApiServer> {
    const server = new ApiServer(options);
    await new Promise<void>((resolve, reject) => {
      server.http.once('error', reject);
      server.http.listen(options.port ?? 0, '127.0.0.1', () => resolve());
    });
    server.url = `https://127.0.0.1:${(server.http.address() as { port: number }).port}`;
    return server;
  }

  async close(): Promise<void> {
    if (!this.http.listening) return;
    for (const watch of this.watches) watch.end();
    this.http.closeAllConnections();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
    this.store.close();
  }

  private bootstrap(object: KubeObject): void {
    const [group, version] = object.apiVersion!.includes('/') ? object.apiVersion!.split('/') : ['', object.apiVersion!];
    const type = this.registry.all().find((candidate) => candidate.group === group && candidate.kind === object.kind);
    if (!type) throw new Error(`cannot bootstrap ${object.apiVersion} ${object.kind}: no such resource`);
    const target: Target = { type, group, version, namespace: object.metadata.namespace };
    if (!this.store.get(resourceKey(group, type.plural), object.metadata.namespace, object.metadata.name!)) this.create(target, structuredClone(object), new URLSearchParams());
  }

  // ---- HTTP ----

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const segments = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
      if (['/healthz', '/livez', '/readyz'].includes(url.pathname)) return text(res, 200, 'ok');
      if (url.pathname === '/version') return json(res, 200, SERVER_VERSION);
      const user = this.authenticate(req);
      const document = this.discovery(segments, req);
      if (document !== undefined) return json(res, 200, document);
      const target = this.target(segments);
      await this.serve(req, res, url.searchParams, target, user);
    } catch (error) {
      const status = error instanceof ApiError ? error.status : internalError((error as Error).message).status;
      if (!res.headersSent) json(res, status.code, status);
      else res.end();
    }
  }

  private authenticate(req: IncomingMessage): User {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const user = token ? this.users.get(token) : undefined;
    if (!user) throw unauthorized();
    return user;
  }

  private discovery(segments: string[], req: IncomingMessage): unknown {
    const types = this.registry.all();
    const [root, ...rest] = segments;
    if (root === 'api' && rest.length === 0) return apiVersions(req.headers.host ?? '');
    if (root === 'api' && rest.length === 1) return apiResourceList(types, '', rest[0]) ?? throwError(pathNotFound());
    if (root === 'apis' && rest.length === 0) return apiGroupList(types);
    if (root === 'apis' && rest.length === 1) return apiGroupDocument(types, rest[0]) ?? throwError(pathNotFound());
    if (root === 'apis' && rest.length === 2) return apiResourceList(types, rest[0], rest[1]) ?? throwError(pathNotFound());
    if (root === 'openapi' && rest[0] === 'v3') {
      if (rest.length === 1) return openApiIndex(types);
      const [, prefix, ...groupVersion] = rest;
      const [group, version] = prefix === 'api' ? ['', groupVersion[0]] : groupVersion;
      return openApiDocument(types, group, version) ?? throwError(pathNotFound());
    }
    if (root === 'api' || root === 'apis') return undefined;
    throw pathNotFound();
  }

  private target(segments: string[]): Target {
    const core = segments[0] === 'api';
    const group = core ? '' : segments[1];
    const version = core ? segments[1] : segments[2];
    let rest = segments.slice(core ? 2 : 3);
    let namespace: string | undefined;
    if (rest[0] === 'namespaces' && rest.length >= 3 && this.registry.find(group, version, rest[2])?.namespaced) {
      namespace = rest[1];
      rest = rest.slice(2);
    }
    const [plural, name, subresource, ...extra] = rest;
    const type = plural ? this.registry.find(group, version, plural) : undefined;
    if (!type || extra.length || (namespace && !type.namespaced)) throw pathNotFound();
    if (subresource && !(subresource === 'status' && type.statusSubresource)) throw pathNotFound();
    return { type, group, version, namespace, name, subresource };
  }

  private async serve(req: IncomingMessage, res: ServerResponse, query: URLSearchParams, target: Target, user: User): Promise<void> {
    const verb = verbOf(req.method ?? 'GET', target, query);
    const { type, namespace, name } = target;
    if (!authorize(user, { verb, group: target.group, resource: type.plural, namespace, name }, () => this.rbacObjects())) {
      throw forbidden(user.name, verb, target.group, type.plural, name, namespace);
    }
    const table = /as=Table/.test(req.headers.accept ?? '');
    const include = (query.get('includeObject') as IncludeObject | null) ?? 'Metadata';
    const warnings: string[] = [];
    switch (verb) {
      case 'get':
        return this.respond(res, 200, this.existing(target), target, table, include);
      case 'list':
        return this.list(res, query, target, table, include);
      case 'watch':
        return this.watch(req, res, query, target, table, include);
      case 'create':
        return this.respond(res, 201, this.create(target, await readObject(req), query, warnings), target, false, include, warnings);
      case 'update':
        return this.respond(res, 200, this.update(target, await readObject(req), query, warnings), target, false, include, warnings);
      case 'patch':
        return this.respond(res, 200, this.patch(target, req.headers['content-type'] ?? '', await readBody(req), query, warnings), target, false, include, warnings);
      case 'delete':
        return this.respond(res, 200, this.delete(target, await readOptions(req), query), target, false, include);
      case 'deletecollection':
        return json(res, 200, this.deleteCollection(target, query));
    }
  }

  private respond(res: ServerResponse, code: number, object: KubeObject, target: Target, table: boolean, include: IncludeObject, warnings: string[] = []): void {
    for (const warning of warnings) res.appendHeader('Warning', `299 - ${JSON.stringify(warning)}`);
    const shown = this.versioned(object, target);
    if (table) return json(res, code, toTable([shown], target.type.columns(target.version), this.store.resourceVersion, include), 'application/json;as=Table;v=v1;g=meta.k8s.io');
    json(res, code, shown);
  }

  /** The object as the requested version presents it (versions share one schema-less storage). */
  private versioned(object: KubeObject, target: Target): KubeObject {
    return { ...object, apiVersion: target.group ? `${target.group}/${target.version}` : target.version, kind: target.type.kind };
  }

  private key(target: Target): string {
    return resourceKey(target.group, target.type.plural);
  }

  private existing(target: Target): KubeObject {
    const object = this.store.get(this.key(target), target.namespace, target.name!);
    if (!object) throw notFound(target.group, target.type.plural, target.name!);
    return object;
  }

  private matcher(query: URLSearchParams): (object: KubeObject) => boolean {
    const labels = labelSelector(query.get('labelSelector'));
    const fields = fieldSelector(query.get('fieldSelector'));
    return (object) => labels(object.metadata.labels as Record<string, string> | undefined) && fields(object);
  }

  private list(res: ServerResponse, query: URLSearchParams, target: Target, table: boolean, include: IncludeObject): void {
    const matches = this.matcher(query);
    const items = this.store.list(this.key(target), target.namespace).filter(matches).map((object) => this.versioned(object, target));
    const resourceVersion = this.store.resourceVersion;
    if (table) return json(res, 200, toTable(items, target.type.columns(target.version), resourceVersion, include), 'application/json;as=Table;v=v1;g=meta.k8s.io');
    json(res, 200, { kind: target.type.listKind, apiVersion: target.group ? `${target.group}/${target.version}` : target.version, metadata: { resourceVersion }, items });
  }

  private watch(req: IncomingMessage, res: ServerResponse, query: URLSearchParams, target: Target, table: boolean, include: IncludeObject): void {
    const matches = this.matcher(query);
    const inScope = (object: KubeObject) =>
      (target.namespace === undefined || object.metadata.namespace === target.namespace) && (target.name === undefined || object.metadata.name === target.name);
    const key = this.key(target);
    const send = (type: string, object: KubeObject) => {
      const shown = this.versioned(object, target);
      res.write(`${JSON.stringify({ type, object: table ? toTable([shown], target.type.columns(target.version), shown.metadata.resourceVersion as string, include) : shown })}\n`);
    };
    const requested = query.get('resourceVersion');
    let since = Number(this.store.resourceVersion);
    if (requested && requested !== '0') {
      since = Number(requested);
      if (!Number.isInteger(since)) throw badRequest(`invalid resourceVersion "${requested}"`);
    }
    const onChange = (change: Change) => {
      if (change.resource !== key || !inScope(change.object)) return;
      const now = matches(change.object);
      const before = change.previous ? matches(change.previous) : false;
      if (change.type === 'MODIFIED' && now !== before) send(now ? 'ADDED' : 'DELETED', change.object);
      else if (now) send(change.type, change.object);
    };
    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    let unsubscribe: () => void;
    try {
      unsubscribe = this.store.subscribe(since, onChange);
    } catch (error) {
      // An expired resourceVersion is an ERROR event in a successful watch response, as the real server sends it.
      if (!(error instanceof ApiError)) throw error;
      res.end(`${JSON.stringify({ type: 'ERROR', object: error.status })}\n`);
      return;
    }
    if (!requested || requested === '0') {
      for (const object of this.store.list(key, target.namespace)) if (inScope(object) && matches(object)) send('ADDED', object);
    }
    res.flushHeaders();
    this.watches.add(res);
    const timeout = Number(query.get('timeoutSeconds'));
    const timer = timeout > 0 ? setTimeout(() => res.end(), timeout * 1000) : undefined;
    const stop = () => {
      unsubscribe();
      clearTimeout(timer);
      this.watches.delete(res);
    };
    req.on('close', stop);
    res.on('close', stop);
  }

  // ---- writes ----

  private rbacObjects(): RbacObjects {
    const rbac = (plural: string) => this.store.list(resourceKey('rbac.authorization.k8s.io', plural)) as never[];
    return { roles: rbac('roles'), clusterRoles: rbac('clusterroles'), roleBindings: rbac('rolebindings'), clusterRoleBindings: rbac('clusterrolebindings') };
  }

  /** Checks an object written through `target` and returns the stored form; errors become 422, unknown fields per fieldValidation. */
  private checked(target: Target, object: KubeObject, name: string, query: URLSearchParams, warnings: string[]): KubeObject {
    const { type } = target;
    const expectedApiVersion = target.group ? `${target.group}/${target.version}` : target.version;
    if (object.kind !== undefined && object.kind !== type.kind) throw badRequest(`the kind of the body (${object.kind}) does not match the resource (${type.kind})`);
    if (object.apiVersion !== undefined && object.apiVersion !== expectedApiVersion) {
      throw badRequest(`the apiVersion of the body (${object.apiVersion}) does not match the request (${expectedApiVersion})`);
    }
    const checked = type.check(target.version, object);
    const errors: FieldError[] = [...checked.errors, ...(type.normalize?.(checked.object) ?? [])];
    if (errors.length) throw invalid(type.kind, target.group, name, errors);
    if (checked.unknownFields.length) {
      const validation = query.get('fieldValidation') ?? 'Warn';
      const messages = checked.unknownFields.map((field) => `unknown field "${field}"`);
      if (validation === 'Strict') {
        throw badRequest(`${type.kind} in version "${target.version}" cannot be handled as a ${type.kind}: strict decoding error: ${messages.join(', ')}`);
      }
      if (validation === 'Warn') warnings.push(...messages);
    }
    return { ...checked.object, apiVersion: expectedApiVersion, kind: type.kind };
  }

  private create(target: Target, body: KubeObject, query: URLSearchParams, warnings: string[] = []): KubeObject {
    const { type } = target;
    if (target.name) throw methodNotAllowed('POST');
    body.metadata ??= {};
    if (type.namespaced) {
      if (!target.namespace) throw pathNotFound();
      if (body.metadata.namespace && body.metadata.namespace !== target.namespace) {
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      body.metadata.namespace = target.namespace;
      if (!this.store.get(resourceKey('', 'namespaces'), undefined, target.namespace)) throw notFound('', 'namespaces', target.namespace);
    } else delete body.metadata.namespace;
    if (!body.metadata.name && typeof body.metadata.generateName === 'string') {
      body.metadata.name = `${body.metadata.generateName}${randomUUID().replace(/-/g, '').slice(0, 5)}`;
    }
    const name = body.metadata.name ?? '';
    if (type.statusSubresource && type.custom) delete body.status;
    const object = this.checked(target, body, name, query, warnings);
    const key = this.key(target);
    if (this.store.get(key, target.namespace, name)) throw alreadyExists(target.group, type.plural, name);
    const { resourceVersion: _rv, deletionTimestamp: _dt, ...metadata } = object.metadata;
    object.metadata = { ...metadata, uid: randomUUID(), creationTimestamp: now(), ...(type.custom || isCrd(target) ? { generation: 1 } : {}) };
    if (query.get('dryRun') === 'All') return object;
    const stored = this.store.put(key, object);
    return isCrd(target) ? this.established(stored) : stored;
  }

  private update(target: Target, body: KubeObject, query: URLSearchParams, warnings: string[]): KubeObject {
    const existing = this.existing(target);
    body.metadata ??= {};
    if (body.metadata.name !== undefined && body.metadata.name !== target.name) {
      throw badRequest(`the name of the object (${body.metadata.name}) does not match the name on the URL (${target.name})`);
    }
    const rv = body.metadata.resourceVersion;
    if (rv === undefined && target.type.custom) {
      throw invalid(target.type.kind, target.group, target.name!, [{ field: 'metadata.resourceVersion', detail: 'Invalid value: 0x0: must be specified for an update' }]);
    }
    if (rv !== undefined && rv !== existing.metadata.resourceVersion) throw conflict(target.group, target.type.plural, target.name!);
    return this.write(target, existing, body, query, warnings);
  }

  private patch(target: Target, contentType: string, body: string, query: URLSearchParams, warnings: string[]): KubeObject {
    const mediaType = contentType.split(';')[0].trim();
    const accepted = target.type.custom ? PATCH_TYPES.filter((type) => !type.startsWith('application/strategic')) : PATCH_TYPES;
    if (!accepted.includes(mediaType) || mediaType === 'application/apply-patch+yaml') {
      throw unsupportedMediaType(accepted.filter((type) => type !== 'application/apply-patch+yaml'));
    }
    const existing = this.existing(target);
    const patch = parseJson(body);
    const current = existing as unknown as Json;
    const patched = (
      mediaType === 'application/json-patch+json' ? applyJsonPatch(current, patch) : mediaType === 'application/merge-patch+json' ? mergePatch(current, patch) : strategicMergePatch(current, patch)
    ) as unknown as KubeObject;
    if (!patched || typeof patched !== 'object' || Array.isArray(patched)) throw badRequest('the patch must leave an object');
    patched.metadata ??= {};
    const rv = patched.metadata.resourceVersion;
    if (rv !== undefined && rv !== existing.metadata.resourceVersion) throw conflict(target.group, target.type.plural, target.name!);
    return this.write(target, existing, patched, query, warnings);
  }

  /** The shared end of update and patch: status subresource rules, checks, generation, no-op detection. */
  private write(target: Target, existing: KubeObject, body: KubeObject, query: URLSearchParams, warnings: string[]): KubeObject {
    const { type } = target;
    let next: KubeObject;
    if (target.subresource === 'status') {
      next = { ...existing, status: body.status };
    } else {
      next = { ...body };
      if (type.statusSubresource) next.status = existing.status;
    }
    next.metadata = { ...next.metadata, name: target.name, namespace: existing.metadata.namespace };
    const object = this.checked(target, next, target.name!, query, warnings);
    const metadata = object.metadata as Record<string, unknown>;
    for (const field of ['uid', 'creationTimestamp', 'deletionTimestamp', 'generation']) {
      if (existing.metadata[field] === undefined) delete metadata[field];
      else metadata[field] = existing.metadata[field];
    }
    if (!type.namespaced) delete object.metadata.namespace;
    if (typeof existing.metadata.generation === 'number' && !isDeepStrictEqual(specOf(object), specOf(existing))) {
      object.metadata.generation = existing.metadata.generation + 1;
    }
    object.metadata.resourceVersion = existing.metadata.resourceVersion;
    // Like the real server: a write that changes nothing keeps the resourceVersion and sends no watch event.
    if (isDeepStrictEqual(object, this.versioned(existing, target))) return existing;
    if (query.get('dryRun') === 'All') return object;
    const key = this.key(target);
    if (object.metadata.deletionTimestamp && !(object.metadata.finalizers as string[] | undefined)?.length) {
      return this.store.remove(key, existing.metadata.namespace, target.name!)!;
    }
    const stored = this.store.put(key, object);
    return isCrd(target) && target.subresource !== 'status' ? this.established(stored) : stored;
  }

  private delete(target: Target, options: DeleteOptions, query: URLSearchParams): KubeObject {
    const existing = this.existing(target);
    const { uid, resourceVersion } = options.preconditions ?? {};
    if ((uid && uid !== existing.metadata.uid) || (resourceVersion && resourceVersion !== existing.metadata.resourceVersion)) {
      throw conflict(target.group, target.type.plural, target.name!);
    }
    if (query.get('dryRun') === 'All') return existing;
    const key = this.key(target);
    if ((existing.metadata.finalizers as string[] | undefined)?.length) {
      if (existing.metadata.deletionTimestamp) return existing;
      return this.store.put(key, { ...existing, metadata: { ...existing.metadata, deletionTimestamp: now(), deletionGracePeriodSeconds: 0 } });
    }
    if (target.group === '' && target.type.plural === 'namespaces') this.emptyNamespace(target.name!);
    if (isCrd(target)) {
      const removed = this.registry.unregisterCrd(target.name!);
      if (removed) this.store.removeAll(removed);
    }
    return this.store.remove(key, existing.metadata.namespace, target.name!)!;
  }

  private deleteCollection(target: Target, query: URLSearchParams): Status {
    const matches = this.matcher(query);
    for (const object of this.store.list(this.key(target), target.namespace).filter(matches)) {
      this.delete({ ...target, name: object.metadata.name, namespace: object.metadata.namespace }, {}, query);
    }
    return success(target.group, target.type.plural, '');
  }

  private emptyNamespace(namespace: string): void {
    for (const type of this.registry.all().filter((candidate) => candidate.namespaced)) {
      const key = resourceKey(type.group, type.plural);
      for (const object of this.store.list(key, namespace)) this.store.remove(key, namespace, object.metadata.name!);
    }
  }

  /** A CRD's resource is served as soon as it is stored, and its status says so. */
  private established(crd: KubeObject): KubeObject {
    const definition = crd as unknown as CustomResourceDefinition;
    const { names } = definition.spec;
    const acceptedNames = { ...names, listKind: names.listKind ?? `${names.kind}List`, singular: names.singular ?? names.kind.toLowerCase() };
    const time = now();
    const status = {
      conditions: [
        { type: 'NamesAccepted', status: 'True', lastTransitionTime: time, reason: 'NoConflicts', message: 'no conflicts found' },
        { type: 'Established', status: 'True', lastTransitionTime: time, reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' },
      ],
      acceptedNames,
      storedVersions: definition.spec.versions.filter((version) => version.storage).map((version) => version.name),
    };
    this.registry.registerCrd(definition);
    const key = resourceKey('apiextensions.k8s.io', 'customresourcedefinitions');
    const previous = crd.status as { conditions?: { type: string; status: string }[]; acceptedNames?: unknown } | undefined;
    const unchanged =
      isDeepStrictEqual(previous?.acceptedNames, acceptedNames) &&
      previous?.conditions?.map(({ type, status }) => `${type}=${status}`).join() === 'NamesAccepted=True,Established=True';
    return unchanged ? crd : this.store.put(key, { ...crd, status });
  }
}

function throwError(error: ApiError): never {
  throw error;
}

function isCrd(target: Target): boolean {
  return target.group === 'apiextensions.k8s.io' && target.type.plural === 'customresourcedefinitions';
}

/** What metadata.generation counts: everything but metadata and status. */
function specOf(object: KubeObject): unknown {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = object;
  return rest;
}

function now(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function verbOf(method: string, target: Target, query: URLSearchParams): string {
  const watch = query.get('watch');
  switch (method) {
    case 'GET':
      if (watch === 'true' || watch === '1') return 'watch';
      return target.name ? 'get' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      if (target.name) return 'update';
      break;
    case 'PATCH':
      if (target.name) return 'patch';
      break;
    case 'DELETE':
      return target.name ? 'delete' : 'deletecollection';
  }
  throw methodNotAllowed(method);
}

async function readBytes(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new ApiError({ ...badRequest('').status, code: 413, reason: 'RequestEntityTooLarge', message: 'Request entity too large' });
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

async function readBody(req: IncomingMessage): Promise<string> {
  return (await readBytes(req)).toString('utf8');
}

function parseJson(text: string): Json {
  try {
    return JSON.parse(text) as Json;
  } catch (error) {
    throw badRequest(`the request body is not valid JSON: ${(error as Error).message}`);
  }
}

async function readObject(req: IncomingMessage): Promise<KubeObject> {
  const contentType = req.headers['content-type'] ?? '';
  const bytes = await readBytes(req);
  if (contentType.startsWith(PROTOBUF)) {
    try {
      return decodeKubernetesProtobuf(bytes) as KubeObject;
    } catch (error) {
      throw unsupportedMediaType([`application/json (${(error as Error).message})`]);
    }
  }
  const body = bytes.toString('utf8');
  const value = /yaml/.test(contentType) ? parseYaml(body) : parseJson(body);
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw badRequest('the request body must be an object');
  return value as KubeObject;
}

/** DeleteOptions, when the request has a body. */
async function readOptions(req: IncomingMessage): Promise<DeleteOptions> {
  if (!Number(req.headers['content-length'] ?? 0) && req.headers['transfer-encoding'] === undefined) {
    req.resume();
    return {};
  }
  return (await readObject(req)) as DeleteOptions;
}

function json(res: ServerResponse, code: number, body: unknown, contentType = 'application/json'): void {
  const payload = JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(payload) });
  res.end(payload);
}

function text(res: ServerResponse, code: number, body: string): void {
  res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(body);
}

