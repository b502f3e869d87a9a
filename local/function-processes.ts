// Runs each function as its own process on loopback, from the command of its Knative Service,
// with the environment Knative would give it (PORT, K_SINK) and a kubeconfig for its service
// account. A process that dies is started again, as its pod would be.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import type { FunctionService } from './event-plane/manifests.ts';
import { freePort } from './free-port.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const READY_TIMEOUT_MS = 30_000;

export interface RunningFunction {
  name: string;
  url: string;
  logFile: string;
}

async function ready(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline && child.exitCode === null) {
    const response = await fetch(`${url}/health/readiness`).catch(() => undefined);
    if (response?.ok) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${url} did not become ready`);
}

export class FunctionProcesses {
  private readonly children = new Map<string, ChildProcess>();
  private stopping = false;
  readonly running: RunningFunction[] = [];

  /** Starts every function and resolves when all answer their readiness probe. */
  static async start(options: { functions: FunctionService[]; env: Record<string, string>; logDir: string; log: Logger }): Promise<FunctionProcesses> {
    const processes = new FunctionProcesses();
    mkdirSync(options.logDir, { recursive: true });
    await Promise.all(options.functions.map((service) => processes.run(service, options)));
    return processes;
  }

  private async run(service: FunctionService, options: { env: Record<string, string>; logDir: string; log: Logger }, restarts = 0): Promise<void> {
    const [program, ...args] = service.command;
    if (program !== 'node') throw new Error(`function ${service.name}: only node commands run locally, not ${program}`);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const logFile = join(options.logDir, `${service.name}.log`);
    const output = createWriteStream(logFile, { flags: 'a' });
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: { ...process.env, ...service.env, ...options.env, PORT: String(port), HOST: '127.0.0.1' },
      // The IPC channel tells the function when this process is gone (see runFunction).
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    child.stdout!.pipe(output);
    child.stderr!.pipe(output);
    this.children.set(service.name, child);
    child.once('exit', (code, signal) => {
      if (this.stopping) return;
      options.log.warn({ function: service.name, code, signal, logFile }, 'function exited; starting it again');
      const entry = this.running.findIndex((running) => running.name === service.name);
      if (entry >= 0) this.running.splice(entry, 1);
      setTimeout(() => void this.run(service, options, restarts + 1).catch((error) => options.log.error({ err: error }, 'restart failed')), Math.min(30_000, 500 * 2 ** restarts));
    });
    await ready(url, child);
    this.running.push({ name: service.name, url, logFile });
  }

  url(name: string): string | undefined {
    return this.running.find((running) => running.name === name)?.url;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(
      [...this.children.values()].map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      ),
    );
  }
}
