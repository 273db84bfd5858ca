// A minimal HTTP server for the benchmarks, run in its own process so that its
// CPU time is not counted as the client's. Prints its port, then serves until killed.
import http from 'node:http';

const body = JSON.stringify({ id: '123', name: 'general', topic: 'benchmarks', position: 3, nsfw: false, extra_field: { nested: [1, 2, 3] } });
const server = http.createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    response.end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
