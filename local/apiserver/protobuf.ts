// Reads request bodies sent as Kubernetes protobuf (Content-Type application/vnd.kubernetes.protobuf)
// into the JSON object the client would have sent as JSON. kubectl's typed commands (create
// namespace|secret|configmap|serviceaccount|role|rolebinding|clusterrole|clusterrolebinding, auth
// reconcile) send protobuf and do not fall back to JSON when refused, so the server must read it;
// it always answers in JSON, which those clients also accept.
//
// A body is the magic "k8s\0", then a runtime.Unknown: typeMeta = 1 {apiVersion = 1, kind = 2},
// raw = 2 (the typed object's protobuf), contentEncoding = 3, contentType = 4. Field numbers below
// are from the generated.proto files of k8s.io/api core/v1 and rbac/v1 and k8s.io/apimachinery
// meta/v1; the JSON names and omitempty rules are from the Go types' json tags.
//
// Go's encoder writes every non-pointer field, empty or not, so the wire cannot say "unset"; the
// JSON rules decide instead: omitempty fields are left out when empty, the others are written
// with their zero value, pointers are written whenever they are on the wire, and embedded structs
// whenever they are on the wire (Go's JSON never omits a struct). A zero metav1.Time is an empty
// message; Go's JSON writes it as null, and it is left out here. Lists and maps protobuf leaves
// out are nil in Go (JSON null, or omitted): left out here too.

/** How a field appears in Go's JSON: omitted when empty, always written, or written when set. */
type Presence = 'omitempty' | 'always' | 'pointer';
type Scalar = 'string' | 'int' | 'bool' | 'strings' | 'stringMap' | 'bytesMap' | 'time' | 'microTime';
/** A message table: field number to [JSON name, type, presence]; `[Message]` is a repeated message. */
interface Message {
  [field: number]: [json: string, type: Scalar | Message | [Message], presence?: Presence];
}

const OWNER_REFERENCE: Message = {
  5: ['apiVersion', 'string', 'always'],
  1: ['kind', 'string', 'always'],
  3: ['name', 'string', 'always'],
  4: ['uid', 'string', 'always'],
  6: ['controller', 'bool', 'pointer'],
  7: ['blockOwnerDeletion', 'bool', 'pointer'],
};

// managedFields (17) is not read: this server keeps none, so clients have none to send back.
const OBJECT_META: Message = {
  1: ['name', 'string'],
  2: ['generateName', 'string'],
  3: ['namespace', 'string'],
  4: ['selfLink', 'string'],
  5: ['uid', 'string'],
  6: ['resourceVersion', 'string'],
  7: ['generation', 'int'],
  8: ['creationTimestamp', 'time'],
  9: ['deletionTimestamp', 'time'],
  10: ['deletionGracePeriodSeconds', 'int', 'pointer'],
  11: ['labels', 'stringMap'],
  12: ['annotations', 'stringMap'],
  13: ['ownerReferences', [OWNER_REFERENCE]],
  14: ['finalizers', 'strings'],
};

const OBJECT_REFERENCE: Message = {
  1: ['kind', 'string'],
  2: ['namespace', 'string'],
  3: ['name', 'string'],
  4: ['uid', 'string'],
  5: ['apiVersion', 'string'],
  6: ['resourceVersion', 'string'],
  7: ['fieldPath', 'string'],
};

const LABEL_SELECTOR: Message = {
  1: ['matchLabels', 'stringMap'],
  2: ['matchExpressions', [{ 1: ['key', 'string', 'always'], 2: ['operator', 'string', 'always'], 3: ['values', 'strings'] }]],
};

const NAMESPACE: Message = {
  1: ['metadata', OBJECT_META],
  2: ['spec', { 1: ['finalizers', 'strings'] }],
  3: [
    'status',
    {
      1: ['phase', 'string'],
      2: [
        'conditions',
        [{ 1: ['type', 'string', 'always'], 2: ['status', 'string', 'always'], 4: ['lastTransitionTime', 'time'], 5: ['reason', 'string'], 6: ['message', 'string'] }],
      ],
    },
  ],
};

const SECRET: Message = {
  1: ['metadata', OBJECT_META],
  5: ['immutable', 'bool', 'pointer'],
  2: ['data', 'bytesMap'],
  4: ['stringData', 'stringMap'],
  3: ['type', 'string'],
};

const CONFIG_MAP: Message = {
  1: ['metadata', OBJECT_META],
  4: ['immutable', 'bool', 'pointer'],
  2: ['data', 'stringMap'],
  3: ['binaryData', 'bytesMap'],
};

const SERVICE_ACCOUNT: Message = {
  1: ['metadata', OBJECT_META],
  2: ['secrets', [OBJECT_REFERENCE]],
  3: ['imagePullSecrets', [{ 1: ['name', 'string'] }]],
  4: ['automountServiceAccountToken', 'bool', 'pointer'],
};

const EVENT: Message = {
  1: ['metadata', OBJECT_META],
  2: ['involvedObject', OBJECT_REFERENCE],
  3: ['reason', 'string'],
  4: ['message', 'string'],
  5: ['source', { 1: ['component', 'string'], 2: ['host', 'string'] }],
  6: ['firstTimestamp', 'time'],
  7: ['lastTimestamp', 'time'],
  8: ['count', 'int'],
  9: ['type', 'string'],
  10: ['eventTime', 'microTime'],
  11: ['series', { 1: ['count', 'int'], 2: ['lastObservedTime', 'microTime'] }],
  12: ['action', 'string'],
  13: ['related', OBJECT_REFERENCE],
  14: ['reportingComponent', 'string', 'always'],
  15: ['reportingInstance', 'string', 'always'],
};

const POLICY_RULE: Message = {
  1: ['verbs', 'strings'],
  2: ['apiGroups', 'strings'],
  3: ['resources', 'strings'],
  4: ['resourceNames', 'strings'],
  5: ['nonResourceURLs', 'strings'],
};

const SUBJECT: Message = {
  1: ['kind', 'string', 'always'],
  2: ['apiGroup', 'string'],
  3: ['name', 'string', 'always'],
  4: ['namespace', 'string'],
};

const ROLE_REF: Message = { 1: ['apiGroup', 'string', 'always'], 2: ['kind', 'string', 'always'], 3: ['name', 'string', 'always'] };
const ROLE: Message = { 1: ['metadata', OBJECT_META], 2: ['rules', [POLICY_RULE]] };
const CLUSTER_ROLE: Message = { ...ROLE, 3: ['aggregationRule', { 1: ['clusterRoleSelectors', [LABEL_SELECTOR]] }] };
const BINDING: Message = { 1: ['metadata', OBJECT_META], 2: ['subjects', [SUBJECT]], 3: ['roleRef', ROLE_REF] };

const DELETE_OPTIONS: Message = {
  1: ['gracePeriodSeconds', 'int', 'pointer'],
  2: ['preconditions', { 1: ['uid', 'string', 'pointer'], 2: ['resourceVersion', 'string', 'pointer'] }],
  3: ['orphanDependents', 'bool', 'pointer'],
  4: ['propagationPolicy', 'string', 'pointer'],
  5: ['dryRun', 'strings'],
  6: ['ignoreStoreReadErrorWithClusterBreakingPotential', 'bool', 'pointer'],
};

const RBAC = 'rbac.authorization.k8s.io/v1';

/** The kinds read, by "apiVersion kind". CustomResourceDefinitions are not among them: kubectl
 * sends those from files, always as JSON. */
const KINDS: Record<string, Message> = {
  'v1 Namespace': NAMESPACE,
  'v1 Secret': SECRET,
  'v1 ConfigMap': CONFIG_MAP,
  'v1 ServiceAccount': SERVICE_ACCOUNT,
  'v1 Event': EVENT,
  [`${RBAC} Role`]: ROLE,
  [`${RBAC} ClusterRole`]: CLUSTER_ROLE,
  [`${RBAC} RoleBinding`]: BINDING,
  [`${RBAC} ClusterRoleBinding`]: BINDING,
  // Go clients send DeleteOptions in the group version of the resource they delete, or in
  // meta.k8s.io/v1; the API server accepts both.
  ...Object.fromEntries(['v1', RBAC, 'apiextensions.k8s.io/v1', 'meta.k8s.io/v1'].map((version) => [`${version} DeleteOptions`, DELETE_OPTIONS])),
};

const UNKNOWN: Message = {
  1: ['typeMeta', { 1: ['apiVersion', 'string', 'always'], 2: ['kind', 'string', 'always'] }],
  3: ['contentEncoding', 'string'],
  4: ['contentType', 'string'],
};

const MAGIC = [0x6b, 0x38, 0x73, 0x00];
const VARINT = 0;
const LENGTH_DELIMITED = 2;

/** One value on the wire. 64-bit and 32-bit values (wire types 1 and 5) are only skipped: no field read here has one. */
interface WireValue {
  wireType: number;
  /** The value of a varint (wire type 0). */
  number: bigint;
  /** The content of a length-delimited value (wire type 2). */
  bytes: Uint8Array;
}

type WireMessage = Map<number, WireValue[]>;

function readVarint(bytes: Uint8Array, at: number): [value: bigint, next: number] {
  let value = 0n;
  for (let shift = 0n, i = at; i < bytes.length && shift < 70n; i++, shift += 7n) {
    value |= BigInt(bytes[i] & 0x7f) << shift;
    if (bytes[i] < 0x80) return [BigInt.asUintN(64, value), i + 1];
  }
  throw new Error('invalid protobuf: a varint is truncated or longer than 10 bytes');
}

/** The fields of one message by number, each with its values in wire order. */
function wireFields(bytes: Uint8Array): WireMessage {
  const fields: WireMessage = new Map();
  let at = 0;
  while (at < bytes.length) {
    const [key, afterKey] = readVarint(bytes, at);
    const field = Number(key >> 3n);
    const wireType = Number(key & 7n);
    if (field === 0) throw new Error('invalid protobuf: field number 0');
    const value: WireValue = { wireType, number: 0n, bytes: new Uint8Array() };
    if (wireType === VARINT) [value.number, at] = readVarint(bytes, afterKey);
    else if (wireType === 1 || wireType === 5) {
      at = afterKey + (wireType === 1 ? 8 : 4);
      if (at > bytes.length) throw new Error(`invalid protobuf: field ${field} is truncated`);
    } else if (wireType === LENGTH_DELIMITED) {
      const [length, start] = readVarint(bytes, afterKey);
      at = start + Number(length);
      if (at > bytes.length) throw new Error(`invalid protobuf: field ${field} is truncated`);
      value.bytes = bytes.subarray(start, at);
    } else throw new Error(`invalid protobuf: field ${field} has wire type ${wireType} (a group), which Kubernetes does not use`);
    if (!fields.has(field)) fields.set(field, []);
    fields.get(field)!.push(value);
  }
  return fields;
}

function expect(value: WireValue, json: string, wireType: number): WireValue {
  if (value.wireType !== wireType) throw new Error(`invalid protobuf: field ${json} has wire type ${value.wireType}, expected ${wireType}`);
  return value;
}

const delimited = (value: WireValue, json: string) => expect(value, json, LENGTH_DELIMITED).bytes;
const varint = (value: WireValue, json: string) => expect(value, json, VARINT).number;
const utf8 = new TextDecoder();
const text = (value: WireValue, json: string) => utf8.decode(delimited(value, json));

/** A proto map: repeated entries {key = 1, value = 2}. */
function mapOf(values: WireValue[], json: string, decodeValue: (value: WireValue) => string): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const entry of values) {
    const fields = wireFields(delimited(entry, json));
    const key = fields.get(1)?.at(-1);
    const value = fields.get(2)?.at(-1);
    entries[key ? text(key, json) : ''] = value ? decodeValue(value) : '';
  }
  return entries;
}

/** metav1.Time in RFC 3339 to the second, MicroTime to the microsecond; an empty message is the zero time (JSON null). */
function timestamp(message: Uint8Array, json: string, micro: boolean): string | undefined {
  if (!message.length) return undefined;
  const fields = wireFields(message);
  const seconds = fields.get(1)?.at(-1);
  const nanos = fields.get(2)?.at(-1);
  const date = new Date(Number(BigInt.asIntN(64, seconds ? varint(seconds, json) : 0n)) * 1000);
  const year = date.getUTCFullYear();
  if (!(year >= 0 && year <= 9999)) throw new Error(`invalid protobuf: field ${json} is a time outside the years 0 to 9999`);
  const base = date.toISOString().slice(0, 19);
  return micro ? `${base}.${String(Math.floor(Number(nanos ? varint(nanos, json) : 0n) / 1000)).padStart(6, '0')}Z` : `${base}Z`;
}

function decodeField(values: WireValue[], json: string, type: Scalar | Message | [Message]): unknown {
  if (Array.isArray(type)) return values.map((value) => decodeMessage(delimited(value, json), type[0]));
  // An embedded message that occurs more than once merges, as their concatenation does.
  if (typeof type === 'object') return decodeMessage(Buffer.concat(values.map((value) => delimited(value, json))), type);
  const last = values.at(-1)!;
  switch (type) {
    case 'string':
      return text(last, json);
    case 'int':
      return Number(BigInt.asIntN(64, varint(last, json)));
    case 'bool':
      return varint(last, json) !== 0n;
    case 'strings':
      return values.map((value) => text(value, json));
    case 'stringMap':
      return mapOf(values, json, (value) => text(value, json));
    case 'bytesMap':
      return mapOf(values, json, (value) => Buffer.from(delimited(value, json)).toString('base64'));
    case 'time':
    case 'microTime':
      return timestamp(delimited(last, json), json, type === 'microTime');
  }
}

const ZERO: Partial<Record<Scalar, unknown>> = { string: '', int: 0, bool: false };

function decodeFields(wire: WireMessage, table: Message): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const [number, [json, type, presence = 'omitempty']] of Object.entries(table)) {
    const values = wire.get(Number(number));
    if (!values) {
      if (presence === 'always') object[json] = ZERO[type as Scalar];
      continue;
    }
    const value = decodeField(values, json, type);
    const zero = value === '' || value === 0 || value === false;
    if (value !== undefined && !(zero && presence === 'omitempty')) object[json] = value;
  }
  return object;
}

const decodeMessage = (bytes: Uint8Array, table: Message) => decodeFields(wireFields(bytes), table);

/** The JSON object a client sent as Kubernetes protobuf; throws for a body that is not one, or of a kind not read here. */
export function decodeKubernetesProtobuf(body: Uint8Array): Record<string, unknown> {
  if (!MAGIC.every((byte, i) => body[i] === byte)) {
    throw new Error('the body is not Kubernetes protobuf: it does not start with "k8s\\0"; send it as JSON (Content-Type: application/json)');
  }
  const envelope = wireFields(body.subarray(MAGIC.length));
  const { typeMeta = {}, contentEncoding = '', contentType = '' } = decodeFields(envelope, UNKNOWN);
  if (contentEncoding !== '' || (contentType !== '' && contentType !== 'application/vnd.kubernetes.protobuf')) {
    throw new Error(`the protobuf body wraps "${contentType}" content with encoding "${contentEncoding}"; only plain protobuf is read; send it as JSON (Content-Type: application/json)`);
  }
  const { apiVersion = '', kind = '' } = typeMeta as { apiVersion?: string; kind?: string };
  const table = KINDS[`${apiVersion} ${kind}`];
  if (!table) {
    throw new Error(
      `cannot read apiVersion "${apiVersion}" kind "${kind}" from protobuf; protobuf is read only for ${Object.keys(KINDS).join(', ')}; send it as JSON (Content-Type: application/json)`,
    );
  }
  const raw = envelope.get(2)?.at(-1);
  return { apiVersion, kind, ...decodeMessage(raw ? delimited(raw, 'raw') : new Uint8Array(), table) };
}
