// A metrics provider on loopback that answers every query after a delay (default 5 ms), in its own
// process. Prints its port on stdout. The value depends on the version, so that experiments find a
// winner and move traffic.
import { createServer } from 'node:http';

const delayMs = Number(process.argv[2] ?? 5);

const server = createServer((req, res) => {
  const version = new URL(req.url ?? '/', 'http://localhost').searchParams.get('version') ?? '';
  const value = version.endsWith('-v3') ? 30 : version.endsWith('-v2') ? 20 : 10;
  const body = JSON.stringify({ value });
  req.resume();
  setTimeout(() => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  }, delayMs);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log((server.address() as { port: number }).port));
