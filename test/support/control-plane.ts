// The local control plane for tests: in-process, or as an `exp local up` process, with the real
// kubectl and @kubernetes/client-node pointed at it.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { KubeConfig } from '@kubernetes/client-node';
import { startControlPlane, type ControlPlane } from '../../local/control-plane.ts';
import { tempDir } from './processes.ts';

const EXP = new URL('../../cli/exp.ts', import.meta.url).pathname;

export interface KubectlRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface TestCluster {
  kubeconfig: string;
  /** Client configuration as the administrator (context exp-local) or the functions' service account (exp-analytics). */
  config: (context?: 'exp-local' | 'exp-analytics') => KubeConfig;
  kubectl: (args: string[], input?: string) => Promise<KubectlRun>;
}

function kubectlFor(kubeconfig: string, cacheDir: string): TestCluster['kubectl'] {
  return (args, input) =>
    new Promise((resolve, reject) => {
      const child = execFile(
        'kubectl',
        args,
        { env: { ...process.env, KUBECONFIG: kubeconfig, KUBECACHEDIR: cacheDir }, timeout: 60_000 },
        (error, stdout, stderr) => {
          if (error && (error as NodeJS.ErrnoException).code === 'ENOENT') return reject(new Error('kubectl is not installed; the tests need it on PATH'));
          resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
        },
      );
      if (input !== undefined) child.stdin!.end(input);
    });
}

function configFor(kubeconfig: string): TestCluster['config'] {
  return (context = 'exp-local') => {
    const config = new KubeConfig();
    config.loadFromFile(kubeconfig);
    config.setCurrentContext(context);
    return config;
  };
}

/** An in-process API server (the control plane without exp installed), stopped when the test ends. */
export async function localCluster(t: { teardown: (fn: () => unknown) => void }): Promise<TestCluster & { plane: ControlPlane }> {
  const dir = tempDir('cluster');
  const plane = await startControlPlane({ components: 'apiserver', kubeconfig: join(dir.path, 'kubeconfig') });
  t.teardown(async () => {
    await plane.stop();
    dir.remove();
  });
  return { plane, kubeconfig: plane.kubeconfig, config: configFor(plane.kubeconfig), kubectl: kubectlFor(plane.kubeconfig, join(dir.path, 'cache')) };
}

export interface ClusterProcess extends TestCluster {
  process: ChildProcess;
  output: () => string;
}

/** `exp local up` as a child process, ready when it prints the export line. */
export async function clusterProcess(args: string[], dir: string): Promise<ClusterProcess> {
  const kubeconfig = join(dir, 'kubeconfig');
  const child = spawn(process.execPath, [EXP, 'local', 'up', '--kubeconfig', kubeconfig, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stderr!.on('data', (chunk) => (output += chunk));
  const lines = createInterface({ input: child.stdout! });
  await new Promise<void>((resolve, reject) => {
    lines.on('line', (line) => {
      output += `${line}\n`;
      if (line.startsWith('export KUBECONFIG=')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`exp local up exited with ${code}:\n${output}`)));
  });
  return { process: child, output: () => output, kubeconfig, config: configFor(kubeconfig), kubectl: kubectlFor(kubeconfig, join(dir, 'cache')) };
}
