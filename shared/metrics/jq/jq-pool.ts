// Runs jq in worker threads so that an expression that runs away can be stopped: a worker whose
// job passes its deadline is terminated and replaced. Other jobs go to the other workers, and when
// every worker has been busy for a while an extra one is started, so one runaway blocks no one.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { compileJqModule } from './jq-module.ts';
import type { JqCompileOutcome, JqOutcome } from './jq-outcome.ts';
import { DEFAULT_MAX_MEMORY_BYTES } from './jq-runtime.ts';
import type { JqJob, JqJobResult } from './jq-worker.ts';

/** Evaluates jq expressions in-process; `deadline` is an epoch time in milliseconds. */
export interface JqEvaluator {
  evaluate(expression: string, input: Uint8Array, deadline: number): Promise<JqOutcome>;
  compile(expression: string, deadline: number): Promise<JqCompileOutcome>;
}

export interface JqPoolOptions {
  /** Workers kept running (default: the number of cores, between 2 and 4). */
  size?: number;
  /** Extra workers allowed while others are stuck on long jobs (default 2). */
  extraWorkers?: number;
  /** How long a job may run before the pool considers its worker stuck (default 100 ms). */
  stuckAfterMs?: number;
  /** Heap limit of each jq instance; an evaluation that needs more fails (default 256 MB). */
  maxMemoryBytes?: number;
}

type Outcome = JqOutcome | JqCompileOutcome;

interface Job {
  message: JqJob;
  resolve: (outcome: Outcome) => void;
  timer?: NodeJS.Timeout;
  worker?: PoolWorker;
}

interface PoolWorker {
  thread: Worker;
  job?: Job;
  busySince: number;
}

const WORKER_URL = new URL('./jq-worker.ts', import.meta.url);

export class JqPool implements JqEvaluator {
  private readonly module: WebAssembly.Module;
  private readonly size: number;
  private readonly maxSize: number;
  private readonly stuckAfterMs: number;
  private readonly maxMemoryBytes: number;
  private readonly workers = new Set<PoolWorker>();
  private readonly queue: Job[] = [];
  private nextId = 1;
  private recheck?: NodeJS.Timeout;
  private closed = false;

  constructor(options: JqPoolOptions = {}) {
    this.module = compileJqModule();
    this.size = options.size ?? Math.max(2, Math.min(4, availableParallelism()));
    this.maxSize = this.size + (options.extraWorkers ?? 2);
    this.stuckAfterMs = options.stuckAfterMs ?? 100;
    this.maxMemoryBytes = options.maxMemoryBytes ?? DEFAULT_MAX_MEMORY_BYTES;
  }

  evaluate(expression: string, input: Uint8Array, deadline: number): Promise<JqOutcome> {
    return this.submit({ id: this.nextId++, op: 'evaluate', expression, input }, deadline) as Promise<JqOutcome>;
  }

  compile(expression: string, deadline: number): Promise<JqCompileOutcome> {
    return this.submit({ id: this.nextId++, op: 'compile', expression }, deadline) as Promise<JqCompileOutcome>;
  }

  /** Stops every worker; jobs still pending end as engine failures. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.recheck);
    for (const job of this.queue.splice(0)) this.finish(job, { kind: 'engine-failure', message: 'jq pool closed' });
    await Promise.all([...this.workers].map((worker) => this.stop(worker, { kind: 'engine-failure', message: 'jq pool closed' })));
  }

  private submit(message: JqJob, deadline: number): Promise<Outcome> {
    return new Promise((resolve) => {
      if (this.closed) return resolve({ kind: 'engine-failure', message: 'jq pool closed' });
      const job: Job = { message, resolve };
      job.timer = setTimeout(() => this.expire(job), Math.max(0, deadline - Date.now()));
      this.queue.push(job);
      this.dispatch();
    });
  }

  private dispatch(): void {
    clearTimeout(this.recheck);
    while (this.queue.length) {
      const worker = this.idleWorker() ?? this.newWorker();
      if (!worker) break;
      const job = this.queue.shift()!;
      job.worker = worker;
      worker.job = job;
      worker.busySince = Date.now();
      worker.thread.postMessage(job.message);
    }
    if (this.queue.length) {
      const oldest = Math.min(...[...this.workers].map((worker) => worker.busySince));
      this.recheck = setTimeout(() => this.dispatch(), Math.max(1, oldest + this.stuckAfterMs - Date.now()));
      this.recheck.unref();
    }
  }

  private idleWorker(): PoolWorker | undefined {
    for (const worker of this.workers) if (!worker.job) return worker;
    return undefined;
  }

  private newWorker(): PoolWorker | undefined {
    if (this.workers.size >= this.maxSize) return undefined;
    if (this.workers.size >= this.size) {
      const now = Date.now();
      const allStuck = [...this.workers].every((worker) => now - worker.busySince >= this.stuckAfterMs);
      if (!allStuck) return undefined;
    }
    const thread = new Worker(WORKER_URL, { workerData: { module: this.module, maxMemoryBytes: this.maxMemoryBytes }, env: {} });
    thread.unref();
    const worker: PoolWorker = { thread, busySince: Date.now() };
    thread.on('message', (result: JqJobResult) => this.done(worker, result));
    thread.on('error', (error) => this.lost(worker, error.message));
    thread.on('exit', (code) => this.lost(worker, `jq worker exited with code ${code}`));
    this.workers.add(worker);
    return worker;
  }

  private done(worker: PoolWorker, result: JqJobResult): void {
    const job = worker.job;
    if (!job || job.message.id !== result.id) return;
    worker.job = undefined;
    this.finish(job, result.outcome);
    if (result.fatal || (this.workers.size > this.size && !this.queue.length)) void this.stop(worker);
    this.dispatch();
  }

  private lost(worker: PoolWorker, message: string): void {
    if (!this.workers.delete(worker)) return;
    if (worker.job) this.finish(worker.job, { kind: 'engine-failure', message });
    if (!this.closed) this.dispatch();
  }

  private expire(job: Job): void {
    if (job.worker) {
      void this.stop(job.worker, { kind: 'timeout' });
    } else {
      this.queue.splice(this.queue.indexOf(job), 1);
      this.finish(job, { kind: 'timeout' });
    }
    if (!this.closed) this.dispatch();
  }

  private async stop(worker: PoolWorker, outcome?: Outcome): Promise<void> {
    this.workers.delete(worker);
    if (worker.job && outcome) this.finish(worker.job, outcome);
    await worker.thread.terminate();
  }

  private finish(job: Job, outcome: Outcome): void {
    clearTimeout(job.timer);
    job.resolve(outcome);
  }
}
