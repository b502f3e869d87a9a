// `exp local up`: runs the local control plane in the foreground.
import { parseArgs } from 'node:util';
import { DEFAULT_KUBECONFIG, startControlPlane } from '../local/control-plane.ts';
import { BadInput, type Command } from './command.ts';

export const USAGE = `Usage: exp local up [--port N] [--kubeconfig PATH] [--data-dir DIR]

Runs a local Kubernetes-compatible control plane on loopback, in the foreground, and writes a
kubeconfig for it (an admin context, and exp-analytics for the functions' service account).

      --port N            the port to listen on (default: a free one)
      --kubeconfig PATH   where to write the kubeconfig (default: ${DEFAULT_KUBECONFIG})
      --data-dir DIR      keep the objects in DIR across restarts (default: in memory)`;

export const localUp: Command = async (args, out) => {
  const { values } = parseArgs({
    args,
    options: { port: { type: 'string' }, kubeconfig: { type: 'string' }, 'data-dir': { type: 'string' } },
    strict: true,
    allowPositionals: false,
  });
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new BadInput(`--port must be a port number, not "${values.port}"`);
  let plane;
  try {
    plane = await startControlPlane({ port, kubeconfig: values.kubeconfig, dataDir: values['data-dir'] });
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    if (code === 'EADDRINUSE' || code === 'EACCES') throw new BadInput(`cannot listen on port ${port}: ${code}`);
    throw error;
  }
  out(`API server listening on ${plane.url}${values['data-dir'] ? ` (data in ${values['data-dir']})` : ' (in memory)'}`);
  out(`Kubeconfig written to ${plane.kubeconfig}`);
  out(`export KUBECONFIG=${plane.kubeconfig}`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await plane.stop();
  return 0;
};
