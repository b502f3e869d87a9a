// Worker thread entry: one JqRuntime, one job at a time, in message order.
import { parentPort, workerData } from 'node:worker_threads';
import type { JqOutcome, JqCompileOutcome } from './jq-outcome.ts';
import { JqRuntime } from './jq-runtime.ts';

export type JqJob =
  | { id: number; op: 'evaluate'; expression: string; input: Uint8Array }
  | { id: number; op: 'compile'; expression: string };

/** `fatal`: the worker is no longer usable and exits after sending this. */
export type JqJobResult = { id: number; outcome: JqOutcome | JqCompileOutcome; fatal?: boolean };

const runtime = await JqRuntime.create(workerData.module as WebAssembly.Module, workerData.maxMemoryBytes as number);
const port = parentPort!;

port.on('message', (job: JqJob) => {
  try {
    const outcome = job.op === 'compile' ? runtime.compile(job.expression) : runtime.evaluate(job.expression, job.input);
    port.postMessage({ id: job.id, outcome } satisfies JqJobResult);
  } catch (error) {
    // A trap or an abort (out of memory, for one) leaves the instance unusable: the pool replaces us.
    const outcome = { kind: 'engine-failure', message: runtime.failure(error) } as const;
    port.postMessage({ id: job.id, outcome, fatal: true } satisfies JqJobResult);
    process.exit(1);
  }
});
