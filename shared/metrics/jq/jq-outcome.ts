/** JSON type names as jq reports them (jv_kind, with booleans as one type). */
export type JqType = 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object';

/** What one jq evaluation produced: only its first output matters. */
export type JqOutcome =
  | { kind: 'number'; value: number }
  | { kind: 'not-a-number'; type: JqType; json: string }
  | { kind: 'no-output' }
  | { kind: 'halted' }
  | { kind: 'runtime-error'; message: string }
  | { kind: 'compile-error'; message: string }
  | { kind: 'reply-not-json'; message: string }
  | { kind: 'reply-not-object'; type: JqType }
  | { kind: 'timeout' }
  | { kind: 'engine-failure'; message: string };

export type JqCompileOutcome = { kind: 'compiled' } | Extract<JqOutcome, { kind: 'compile-error' | 'timeout' | 'engine-failure' }>;
