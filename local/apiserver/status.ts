// Kubernetes `Status` objects: every error the API server answers with, worded like the real one.
import type { FieldError } from '../../shared/kube/crd-schema.ts';

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure' | 'Success';
  message: string;
  reason: string;
  details?: { name?: string; group?: string; kind?: string; causes?: { reason: string; message: string; field: string }[] };
  code: number;
}

/** An error that carries the Status to answer with. */
export class ApiError extends Error {
  readonly status: Status;
  constructor(status: Status) {
    super(status.message);
    this.status = status;
  }
}

function failure(code: number, reason: string, message: string, details?: Status['details']): ApiError {
  return new ApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, ...(details ? { details } : {}), code });
}

/** `metrics.exp.dev`, or `secrets` for the core group. */
export function qualifiedResource(group: string, plural: string): string {
  return group ? `${plural}.${group}` : plural;
}

export function notFound(group: string, plural: string, name: string): ApiError {
  return failure(404, 'NotFound', `${qualifiedResource(group, plural)} "${name}" not found`, { name, group, kind: plural });
}

export function alreadyExists(group: string, plural: string, name: string): ApiError {
  return failure(409, 'AlreadyExists', `${qualifiedResource(group, plural)} "${name}" already exists`, { name, group, kind: plural });
}

export function conflict(group: string, plural: string, name: string): ApiError {
  return failure(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedResource(group, plural)} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    { name, group, kind: plural },
  );
}

const CAUSE_REASONS: [RegExp, string][] = [
  [/^Required value/, 'FieldValueRequired'],
  [/^Unsupported value/, 'FieldValueNotSupported'],
  [/^Too long/, 'FieldValueTooLong'],
  [/^Too many/, 'FieldValueTooMany'],
  [/^Forbidden/, 'FieldValueForbidden'],
  [/^Duplicate value/, 'FieldValueDuplicate'],
];

/** 422 Invalid with one cause per bad field, as kubectl lists them. */
export function invalid(kind: string, group: string, name: string, errors: FieldError[]): ApiError {
  const messages = errors.map((error) => `${error.field}: ${error.detail}`);
  const summary = messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`;
  const causes = errors.map((error) => ({
    reason: CAUSE_REASONS.find(([pattern]) => pattern.test(error.detail))?.[1] ?? 'FieldValueInvalid',
    message: error.detail,
    field: error.field,
  }));
  return failure(422, 'Invalid', `${group ? `${kind}.${group}` : kind} "${name}" is invalid: ${summary}`, { name, group, kind, causes });
}

export function badRequest(message: string): ApiError {
  return failure(400, 'BadRequest', message);
}

export function unauthorized(): ApiError {
  return failure(401, 'Unauthorized', 'Unauthorized');
}

export function forbidden(user: string, verb: string, group: string, plural: string, name: string | undefined, namespace: string | undefined): ApiError {
  const subject = name ? `${qualifiedResource(group, plural)} "${name}"` : qualifiedResource(group, plural);
  const scope = namespace ? ` in the namespace "${namespace}"` : ' at the cluster scope';
  return failure(403, 'Forbidden', `${subject} is forbidden: User "${user}" cannot ${verb} resource "${plural}" in API group "${group}"${scope}`, {
    ...(name ? { name } : {}),
    group,
    kind: plural,
  });
}

export function methodNotAllowed(method: string): ApiError {
  return failure(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource (${method})`);
}

export function unsupportedMediaType(accepted: string[]): ApiError {
  return failure(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`);
}

export function pathNotFound(): ApiError {
  return failure(404, 'NotFound', 'the server could not find the requested resource');
}

export function expired(requested: string, oldest: number): ApiError {
  return failure(410, 'Expired', `too old resource version: ${requested} (${oldest})`);
}

export function internalError(message: string): ApiError {
  return failure(500, 'InternalError', `Internal error occurred: ${message}`);
}

export function success(group: string, plural: string, name: string): Status {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', message: '', reason: '', details: { name, group, kind: plural }, code: 200 };
}
