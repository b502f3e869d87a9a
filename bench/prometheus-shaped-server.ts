// A loopback server that answers every request like Prometheus's /api/v1/query, in its own process
// so that it does not share the benchmark's event loop. Prints its port on stdout.
import { createServer } from 'node:http';

const reply = JSON.stringify({
  status: 'success',
  data: { resultType: 'vector', result: [{ metric: { revision: 'v1' }, value: [1700000000.123, '42.5'] }] },
});

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(reply) });
    res.end(reply);
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => console.log((server.address() as { port: number }).port));
