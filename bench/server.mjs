// A minimal HTTP server for the benchmarks, run in its own process so that its
// CPU time is not counted as the client's. Prints its port, then serves until killed.
import http from 'node:http';

const body = JSON.stringify({ id: '123', name: 'general', topic: 'benchmarks', position: 3, nsfw: false, extra_field: { nested: [1, 2, 3] } });
// With --ratelimit, every response carries X-RateLimit-* headers with a bucket id that changes every
// 1,000 responses, as a server with many buckets would (the soak benchmark uses it).
const rateLimited = process.argv.includes('--ratelimit');
let served = 0;
const server = http.createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
    if (rateLimited) {
      served++;
      Object.assign(headers, {
        'x-ratelimit-limit': '50',
        'x-ratelimit-remaining': '49',
        'x-ratelimit-reset-after': '1',
        'x-ratelimit-bucket': `b${Math.floor(served / 1000)}`,
      });
    }
    response.writeHead(200, headers);
    response.end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
