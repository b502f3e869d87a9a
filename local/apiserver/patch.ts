// The three patch formats: JSON merge patch (RFC 7386), JSON patch (RFC 6902) and, for built-in
// kinds, strategic merge patch as the API server applies it to their simple shapes.
import jsonPatch from 'fast-json-patch';
import { ApiError, badRequest } from './status.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

export function mergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return patch;
  const result: JsonObject = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key] ?? null, value);
  }
  return result;
}

export function applyJsonPatch(target: Json, operations: unknown): Json {
  if (!Array.isArray(operations)) throw badRequest('the JSON patch must be a list of operations');
  const invalid = jsonPatch.validate(operations as jsonPatch.Operation[]);
  if (invalid) throw badRequest(`the JSON patch is malformed: ${invalid.message.split('\n')[0]}`);
  try {
    return jsonPatch.applyPatch(structuredClone(target), operations as jsonPatch.Operation[], true, false).newDocument as Json;
  } catch (error) {
    // Like the API server: a patch that parses but does not apply (a failed test, a missing path) is 422.
    const { name, operation } = error as { name?: string; operation?: { path?: string } };
    const what = name === 'TEST_OPERATION_FAILED' ? `test failed for ${operation?.path}` : (error as Error).message.split('\n')[0];
    throw new ApiError({ ...badRequest('').status, code: 422, reason: 'Invalid', message: `the JSON patch could not be applied: ${what}` });
  }
}

/**
 * Lists merged by a key instead of replaced, for the built-in kinds served here (from the
 * `patchMergeKey` tags of their Go types).
 */
const MERGE_KEYS: Record<string, string> = {
  ownerReferences: 'uid',
  secrets: 'name',
  imagePullSecrets: 'name',
};
/** Lists of scalars merged as sets (`patchStrategy:"merge"` on []string). */
const MERGED_SCALAR_LISTS = new Set(['finalizers']);

export function strategicMergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return patch;
  if (patch.$patch === 'replace') {
    const { $patch: _, ...rest } = patch;
    return stripDirectives(rest);
  }
  if (patch.$patch === 'delete') return null;
  const result: JsonObject = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$deleteFromPrimitiveList/')) {
      const list = key.slice('$deleteFromPrimitiveList/'.length);
      const remove = new Set((value as Json[]).map((item) => JSON.stringify(item)));
      if (Array.isArray(result[list])) result[list] = (result[list] as Json[]).filter((item) => !remove.has(JSON.stringify(item)));
      continue;
    }
    if (key.startsWith('$')) continue; // $setElementOrder/…, $retainKeys: ordering and pruning hints
    if (value === null) delete result[key];
    else if (Array.isArray(value) && key in MERGE_KEYS) result[key] = mergeByKey(result[key], value, MERGE_KEYS[key]);
    else if (Array.isArray(value) && MERGED_SCALAR_LISTS.has(key)) {
      const existing = Array.isArray(result[key]) ? (result[key] as Json[]) : [];
      result[key] = [...existing, ...value.filter((item) => !existing.includes(item))];
    } else if (isObject(value)) {
      const merged = strategicMergePatch(result[key] ?? null, value);
      if (merged === null) delete result[key];
      else result[key] = merged;
    } else result[key] = value;
  }
  return result;
}

function mergeByKey(target: Json | undefined, patch: Json[], mergeKey: string): Json[] {
  const result = Array.isArray(target) ? [...target] : [];
  for (const item of patch) {
    if (!isObject(item)) continue;
    const index = result.findIndex((existing) => isObject(existing) && existing[mergeKey] === item[mergeKey]);
    if (item.$patch === 'delete') {
      if (index >= 0) result.splice(index, 1);
    } else if (index >= 0) result[index] = strategicMergePatch(result[index], item);
    else result.push(stripDirectives(item));
  }
  return result;
}

function stripDirectives(value: Json): Json {
  if (Array.isArray(value)) return value.map(stripDirectives);
  if (!isObject(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => !key.startsWith('$')).map(([key, item]) => [key, stripDirectives(item)]));
}
