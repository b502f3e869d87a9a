// A real Prometheus (Debian package) holding deterministic backfilled data, and nginx with basic
// auth in front of it.
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, start, tempDir, waitForHttp } from './processes.ts';
import { requireTool } from './tools.ts';

/**
 * The gauge `app_request_latency_ms{revision}`: every 15 s for the last 3 hours, 1000 until an hour
 * ago, then the revision's recent value. So `max_over_time(...[600s])` is the recent value and
 * `max_over_time(...[10800s])` is 1000.
 */
export const RECENT_LATENCY: Record<string, number> = { v1: 42.5, v2: 17.25 };
export const OLD_LATENCY = 1000;

export interface Prometheus {
  url: string;
  stop: () => Promise<void>;
}

function openMetrics(now: number): string {
  const lines = ['# HELP app_request_latency_ms Request latency.', '# TYPE app_request_latency_ms gauge'];
  const start = now - 3 * 3600;
  for (const [revision, recent] of Object.entries(RECENT_LATENCY)) {
    for (let t = start; t < now - 30; t += 15) {
      lines.push(`app_request_latency_ms{revision="${revision}"} ${t < now - 3600 ? OLD_LATENCY : recent} ${t}`);
    }
  }
  lines.push('# EOF');
  return lines.join('\n') + '\n';
}

export async function startPrometheus(): Promise<Prometheus> {
  const prometheus = requireTool('prometheus');
  const promtool = requireTool('promtool');
  const dir = tempDir('prometheus');
  const data = join(dir.path, 'data');
  writeFileSync(join(dir.path, 'data.om'), openMetrics(Math.floor(Date.now() / 1000)));
  execFileSync(promtool, ['tsdb', 'create-blocks-from', 'openmetrics', join(dir.path, 'data.om'), data], { stdio: 'pipe' });
  writeFileSync(join(dir.path, 'prometheus.yml'), 'global:\n  scrape_interval: 1h\n');
  const port = await freePort();
  const server = start(prometheus, [
    `--config.file=${join(dir.path, 'prometheus.yml')}`,
    `--storage.tsdb.path=${data}`,
    '--storage.tsdb.retention.time=10y',
    `--web.listen-address=127.0.0.1:${port}`,
  ]);
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/-/ready`, server);
  return {
    url,
    stop: async () => {
      await server.stop();
      dir.remove();
    },
  };
}

export interface BasicAuthProxy {
  url: string;
  stop: () => Promise<void>;
}

/** An htpasswd line in the salted SHA-1 scheme nginx reads. */
function htpasswd(username: string, password: string): string {
  const salt = randomBytes(8);
  const digest = createHash('sha1').update(password).update(salt).digest();
  return `${username}:{SSHA}${Buffer.concat([digest, salt]).toString('base64')}\n`;
}

/** nginx on a free port, asking for `username`/`password` and proxying to `upstream`. */
export async function startBasicAuthProxy(upstream: string, username: string, password: string): Promise<BasicAuthProxy> {
  const nginx = requireTool('nginx');
  const dir = tempDir('nginx');
  chmodSync(dir.path, 0o755); // nginx workers run as an unprivileged user
  for (const sub of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir.path, sub));
  writeFileSync(join(dir.path, 'htpasswd'), htpasswd(username, password), { mode: 0o644 });
  const port = await freePort();
  writeFileSync(
    join(dir.path, 'nginx.conf'),
    `worker_processes 1;
daemon off;
pid ${dir.path}/nginx.pid;
error_log stderr warn;
events { worker_connections 128; }
http {
  access_log off;
  client_body_temp_path ${dir.path}/body;
  proxy_temp_path ${dir.path}/proxy;
  fastcgi_temp_path ${dir.path}/fastcgi;
  uwsgi_temp_path ${dir.path}/uwsgi;
  scgi_temp_path ${dir.path}/scgi;
  server {
    listen 127.0.0.1:${port};
    location = /healthz { return 200 "ok"; }
    location / {
      auth_basic "prometheus";
      auth_basic_user_file ${dir.path}/htpasswd;
      proxy_pass ${upstream};
    }
  }
}
`,
  );
  const server = start(nginx, ['-e', 'stderr', '-p', dir.path, '-c', join(dir.path, 'nginx.conf')]);
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/healthz`, server);
  return {
    url,
    stop: async () => {
      await server.stop();
      dir.remove();
    },
  };
}
