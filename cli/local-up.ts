// `exp local up`: runs the local control plane in the foreground.
import { parseArgs } from 'node:util';
import { DEFAULT_KUBECONFIG, DEFAULT_STATE_DIR, startControlPlane } from '../local/control-plane.ts';
import { BadInput, type Command } from './command.ts';

export const USAGE = `Usage: exp local up [--port N] [--kubeconfig PATH] [--data-dir DIR] [--ping-seconds N] [--api-server-only]

Runs a local cluster with exp installed, in the foreground, on loopback: a Kubernetes-compatible
API server, the event plane of knative/ (ApiServerSource, PingSource, Broker, Triggers) and the
four functions, each its own process. Writes a kubeconfig for it (an admin context, and
exp-analytics for the functions' service account).

      --port N            the API server's port (default: a free one)
      --kubeconfig PATH   where to write the kubeconfig (default: ${DEFAULT_KUBECONFIG})
      --data-dir DIR      keep the objects in DIR across restarts (default: in memory;
                          the functions' logs go to DIR, or to ${DEFAULT_STATE_DIR}/, under functions/logs)
      --ping-seconds N    ping iteration-tick every N seconds instead of the PingSource's schedule
      --api-server-only   run the API server alone: no event plane, no functions, no exp CRDs`;

export const run: Command = async (args, out) => {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string' },
      kubeconfig: { type: 'string' },
      'data-dir': { type: 'string' },
      'ping-seconds': { type: 'string' },
      'api-server-only': { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new BadInput(`--port must be a port number, not "${values.port}"`);
  const pingSeconds = values['ping-seconds'] === undefined ? undefined : Number(values['ping-seconds']);
  if (pingSeconds !== undefined && !(pingSeconds > 0)) throw new BadInput(`--ping-seconds must be a positive number, not "${values['ping-seconds']}"`);
  let plane;
  try {
    const components = values['api-server-only'] ? 'apiserver' : 'all';
    plane = await startControlPlane({ port, kubeconfig: values.kubeconfig, dataDir: values['data-dir'], pingSeconds, components });
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    if (code === 'EADDRINUSE' || code === 'EACCES') throw new BadInput(`cannot listen on port ${port}: ${code}`);
    throw error;
  }
  out(`API server on ${plane.url}${values['data-dir'] ? ` (data in ${values['data-dir']})` : ' (in memory)'}`);
  for (const fn of plane.functions) out(`Function ${fn.name} on ${fn.url} (log: ${fn.logFile})`);
  if (plane.broker) out(`Broker on ${plane.broker.url}`);
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
