// The engine's dependencies as a function's container (or `exp local up`) provides them: the
// service account's kubeconfig, K_SINK, and a jq pool and query bound for the process.
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import pLimit from 'p-limit';
import type { Logger } from 'pino';
import { runFunction, sinkEmitter, type Handler } from '../events/function-host.ts';
import { createLogger } from '../events/logger.ts';
import { CustomResources } from '../kube/custom-resources.ts';
import { eventRecorder } from '../kube/events.ts';
import { kubeSecretSource } from '../kube/kube-secret-source.ts';
import type { Experiment, Metric } from '../kube/resources.ts';
import { fetchMetric } from '../metrics/fetch-metric.ts';
import { JqPool } from '../metrics/jq/jq-pool.ts';
import { Routing } from '../traffic/routing.ts';
import type { EngineDeps } from './engine.ts';

const COMPILE_TIMEOUT_MS = 5000;
/** Metric queries in flight at once in one function instance, over all its experiments. */
export const DEFAULT_QUERY_CONCURRENCY = 64;

export function engineDeps(component: string, log: Logger, kube: KubeConfig, options: { sink?: string; queryConcurrency?: number } = {}): { deps: EngineDeps; close: () => Promise<void> } {
  const jq = new JqPool();
  const custom = kube.makeApiClient(CustomObjectsApi);
  const core = kube.makeApiClient(CoreV1Api);
  const secrets = kubeSecretSource(core);
  const deps: EngineDeps = {
    experiments: new CustomResources<Experiment>(custom, 'experiments'),
    metrics: new CustomResources<Metric>(custom, 'metrics'),
    routing: new Routing(kube),
    recordEvent: eventRecorder(core, component, log),
    fetchMetric: (query) => fetchMetric(query, { secrets, jq, log }),
    compileJq: (expression) => jq.compile(expression, Date.now() + COMPILE_TIMEOUT_MS),
    emit: sinkEmitter(options.sink),
    limitQueries: pLimit(options.queryConcurrency ?? DEFAULT_QUERY_CONCURRENCY),
    now: () => new Date(),
    log,
    component,
  };
  return { deps, close: () => jq.close() };
}

/** The kubeconfig of the environment: KUBECONFIG locally, the service account in a pod. */
export function kubeFromEnvironment(): KubeConfig {
  const kube = new KubeConfig();
  kube.loadFromDefault();
  return kube;
}

/** The entry point of an experiment function: its handler over the engine, served on PORT. */
export async function runEngineFunction(name: string, makeHandler: (deps: EngineDeps) => Handler): Promise<void> {
  const log = createLogger(name);
  await runFunction(name, log, async () => {
    const { deps, close } = engineDeps(name, log, kubeFromEnvironment(), { sink: process.env.K_SINK });
    return { handler: makeHandler(deps), close };
  });
}
