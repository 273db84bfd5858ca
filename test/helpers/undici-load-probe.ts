/**
 * Run by a test in a fresh process (`startScript`): sends one request through
 * `UndiciTransport` to a loopback server, then prints one JSON line: which of
 * undici's modules the process loaded (paths under the package, from the CJS
 * cache) before anything imported the package's index, and whether the
 * `Pool` and `parseHeaders` the transport loaded are the index's own.
 */
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { AttemptSignal } from '../../src/rest/transport.js';
import { importUndici, UndiciTransport } from '../../src/rest/undici-transport.js';

const server = createServer((_request, response) => response.end('{}'));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as { port: number };
const transport = new UndiciTransport();
const response = await transport.send({
  method: 'GET',
  origin: `http://127.0.0.1:${port}`,
  path: '/',
  headers: {},
  body: undefined,
  signal: new AttemptSignal(),
});
const body = await response.text();
const require = createRequire(import.meta.url);
const loaded = Object.keys(require.cache)
  .map((path) => path.split(/[\\/]node_modules[\\/]undici[\\/]/)[1]?.replaceAll('\\', '/'))
  .filter((path) => path !== undefined);
const ours = await importUndici();
const index = await import('undici');
await transport.close();
server.close();
process.stdout.write(
  `${JSON.stringify({ status: response.status, body, loaded, samePool: ours.Pool === index.Pool, sameUtil: ours.util.parseHeaders === index.util.parseHeaders })}\n`,
);
