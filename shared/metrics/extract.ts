// What a jq outcome means for a metric: its value, or why there is none (DESIGN 3.4).
import type { JqOutcome } from './jq/jq-outcome.ts';
import type { Parsed } from './template.ts';

export type Extraction = Parsed<number>;

export function extraction(outcome: JqOutcome, timeoutSeconds: number): Extraction {
  switch (outcome.kind) {
    case 'number':
      if (Number.isNaN(outcome.value)) return { ok: false, reason: 'jq yielded NaN' };
      if (!Number.isFinite(outcome.value)) return { ok: false, reason: `jq yielded ${outcome.value > 0 ? '' : '-'}infinity` };
      return { ok: true, value: outcome.value };
    case 'not-a-number':
      return { ok: false, reason: outcome.type === 'null' ? 'jq yielded null' : `jq yielded ${outcome.type} ${outcome.json}` };
    case 'no-output':
      return { ok: false, reason: 'jq yielded no output' };
    case 'halted':
      return { ok: false, reason: 'jq halted before any output' };
    case 'runtime-error':
      return { ok: false, reason: `jq error: ${outcome.message}` };
    case 'compile-error':
      return { ok: false, reason: `jq compile error: ${outcome.message}` };
    case 'reply-not-json':
      return { ok: false, reason: `reply is not JSON: ${outcome.message}` };
    case 'reply-not-object':
      return { ok: false, reason: `reply is a JSON ${outcome.type}; a JSON object is expected` };
    case 'timeout':
      return { ok: false, reason: `timeout after ${timeoutSeconds}s (jq was still running)` };
    case 'engine-failure':
      return { ok: false, reason: `jq engine failure: ${outcome.message}` };
  }
}
