// Sends one metric query over HTTP(S) with cross-fetch (node-fetch on Node) and reads the reply,
// within a deadline and a size cap. Failures are reasons, never exceptions.
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import fetch from 'cross-fetch';
import type { HttpRequestSpec } from './build-request.ts';

export interface HttpReply {
  status: number;
  body: Uint8Array;
  latencyMs: number;
}

export type HttpOutcome = { ok: true; reply: HttpReply } | { ok: false; reason: string; latencyMs: number };

export interface HttpLimits {
  /** Epoch milliseconds by which the whole reply must have arrived. */
  deadline: number;
  timeoutSeconds: number;
  maxReplyBytes: number;
}

/** node-fetch options beyond the WHATWG ones (cross-fetch passes them through). */
interface NodeFetchInit extends RequestInit {
  agent?: (url: URL) => HttpAgent;
  size?: number;
  compress?: boolean;
}

// Keep-alive connections: an experiment queries the same provider for every version, every iteration.
const httpAgent = new HttpAgent({ keepAlive: true });
const httpsAgent = new HttpsAgent({ keepAlive: true });

export async function sendQuery(request: HttpRequestSpec, limits: HttpLimits): Promise<HttpOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const target = new URL(request.url).host;
  const init: NodeFetchInit = {
    method: request.method,
    headers: request.headers,
    body: request.body,
    signal: AbortSignal.timeout(Math.max(1, limits.deadline - Date.now())),
    agent: (url) => (url.protocol === 'https:' ? httpsAgent : httpAgent),
    size: limits.maxReplyBytes,
    compress: true,
  };
  try {
    const response = await fetch(request.url, init);
    const declared = Number(response.headers.get('content-length'));
    if (declared > limits.maxReplyBytes) {
      await response.body?.cancel?.();
      return { ok: false, reason: tooLarge(target, limits.maxReplyBytes), latencyMs: elapsed() };
    }
    const body = new Uint8Array(await response.arrayBuffer());
    return { ok: true, reply: { status: response.status, body, latencyMs: elapsed() } };
  } catch (error) {
    return { ok: false, reason: failureReason(error, target, limits), latencyMs: elapsed() };
  }
}

function tooLarge(target: string, maxBytes: number): string {
  return `reply from ${target} is larger than the ${formatBytes(maxBytes)} limit`;
}

export function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${+(bytes / 1024 / 1024).toFixed(1)} MB` : bytes >= 1024 ? `${+(bytes / 1024).toFixed(1)} KB` : `${bytes} bytes`;
}

/** A reason built from the error's kind only: node-fetch messages carry the URL, which may hold a secret. */
function failureReason(error: unknown, target: string, limits: HttpLimits): string {
  const { name, type, code } = error as { name?: string; type?: string; code?: string };
  if (name === 'AbortError' || name === 'TimeoutError') return `timeout after ${limits.timeoutSeconds}s waiting for ${target}`;
  if (type === 'max-size') return tooLarge(target, limits.maxReplyBytes);
  switch (code) {
    case 'ECONNREFUSED':
      return `connection refused by ${target}`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `host not found: ${new URL(`http://${target}`).hostname}`;
    case 'ECONNRESET':
    case 'EPIPE':
      return `connection reset by ${target}`;
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `cannot reach ${target} (${code})`;
  }
  if (code?.startsWith('ERR_TLS') || code?.includes('CERT')) return `TLS error with ${target}: ${code}`;
  return `request to ${target} failed: ${code ?? type ?? name ?? 'unknown error'}`;
}
