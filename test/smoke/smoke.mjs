// Loads the built package through import() and require() and uses both copies
// against a real loopback server. Run after `npm run build`, on every Node we support.
import assert from 'node:assert/strict';
import http from 'node:http';
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';

const require = createRequire(import.meta.url);
const esm = await import('../../dist/index.js');
const cjs = require('../../dist/index.cjs');
const esmTesting = await import('../../dist/testing/index.js');
const cjsTesting = require('../../dist/testing/index.cjs');
const esmTransport = await import('../../dist/transport.js');
const cjsTransport = require('../../dist/transport.cjs');

const requestsSeen = [];
const server = http.createServer((request, response) => {
  requestsSeen.push(request.url);
  response.setHeader('content-type', 'application/json');
  if (request.url.includes('missing')) {
    response.statusCode = 404;
    response.end('{"message":"Unknown channel"}');
    return;
  }
  response.end(JSON.stringify({ id: 'ch1', url: request.url, auth: request.headers.authorization }));
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const baseUrl = `http://127.0.0.1:${server.address().port}`;

let passed = 0;
let failed = 0;
async function check(name, fn) {
  try {
    await fn();
    passed++;
  } catch (error) {
    failed++;
    console.error(`smoke: ${name} failed:`, error);
  }
}

for (const [label, sdk] of [
  ['import', esm],
  ['require', cjs],
]) {
  await check(`${label}: exports`, () => {
    assert.equal(typeof sdk.Client, 'function');
    assert.equal(typeof sdk.WebhookClient, 'function');
    assert.equal(Object.keys(sdk.routes).length, 58);
  });
  await check(`${label}: REST call`, async () => {
    const client = new sdk.Client({ baseUrl, auth: { botToken: 'smoke-token' } });
    const channel = await client.channels.get('ch1');
    assert.deepEqual(channel, { id: 'ch1', url: '/api/v1/channels/ch1', auth: 'Bot smoke-token' });
    await client.close();
  });
  await check(`${label}: webhook executions in turn`, async () => {
    const client = new sdk.Client({ baseUrl, auth: { webhookTokens: { w1: 'smoke-hook-token' } } });
    const results = await Promise.all([1, 2, 3].map((i) => client.webhooks.execute('w1', { content: `m${i}` })));
    assert.equal(results.length, 3);
    await client.close();
  });
  await check(`${label}: validation`, async () => {
    const client = new sdk.Client({ baseUrl, auth: { botToken: 'smoke-token' } });
    await assert.rejects(client.webhooks.execute({ id: 'w', token: 't' }, { content: '' }), (error) => sdk.isCommunityChatError(error, 'ValidationError'));
  });
}

for (const [label, sdk, testing] of [
  ['import', esm, esmTesting],
  ['require', cjs, cjsTesting],
]) {
  await check(`${label}: the testing entry runs the emulator, and the Gateway delivers an interaction`, async () => {
    const emulator = await testing.createEmulator();
    const admin = new sdk.Client({ baseUrl: emulator.url });
    await admin.auth.login({ email: emulator.seed.user.email, password: emulator.seed.user.password });
    await admin.commands.create(emulator.seed.applicationId, { name: 'ping', description: 'Ping' });
    const bot = new sdk.Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken } });
    bot.gateway.onCommand('ping', (interaction) => interaction.reply('pong'));
    await bot.gateway.connect();
    const invoked = emulator.invokeCommand({ name: 'ping' });
    assert.deepEqual((await invoked.response).data, { content: 'pong' });
    await Promise.all([bot.close(), admin.close()]);
    await emulator.close();
  });
}

for (const [label, sdk, testing] of [
  ['import', esm, esmTesting],
  ['require', cjs, cjsTesting],
]) {
  await check(`${label}: shards in worker threads load the built shard-worker and answer an interaction`, async () => {
    const emulator = await testing.createEmulator({ gateway: { shards: 2, maxConcurrency: 2 } });
    const admin = new sdk.Client({ baseUrl: emulator.url });
    await admin.auth.login({ email: emulator.seed.user.email, password: emulator.seed.user.password });
    await admin.commands.create(emulator.seed.applicationId, { name: 'ping', description: 'Ping' });
    const bot = new sdk.Client({ baseUrl: emulator.url, auth: { botToken: emulator.seed.botToken }, gateway: { shards: 'auto', shardsPerWorker: 1 } });
    bot.gateway.onCommand('ping', (interaction) => interaction.reply('pong'));
    await bot.gateway.connect();
    assert.equal(bot.gateway.shardCount, 2);
    const invoked = emulator.invokeCommand({ name: 'ping' });
    assert.deepEqual((await invoked.response).data, { content: 'pong' });
    await Promise.all([bot.close(), admin.close()]);
    await emulator.close();
  });
}

for (const [label, sdk, transport] of [
  ['import', esm, esmTransport],
  ['require', cjs, cjsTransport],
]) {
  await check(`${label}: a custom transport wrapping the undici one, from the transport entry`, async () => {
    assert.equal(sdk.TransportFailure, undefined, 'the main entry no longer exports transport internals');
    const inner = new transport.UndiciTransport();
    const seen = [];
    const custom = { send: (request) => (seen.push(request.path), inner.send(request)), close: () => inner.close() };
    const client = new sdk.Client({ baseUrl, transport: custom, auth: { botToken: 'smoke-token' } });
    assert.equal((await client.channels.get('ch1')).id, 'ch1');
    assert.deepEqual(seen, ['/api/v1/channels/ch1']);
    assert.equal(new transport.TransportFailure('network', 'ECONNRESET', true, undefined).mayHaveReachedServer, true);
    await client.close();
  });
}

// undici (npm) is loaded by the undici transport's first request, not by the import: it pulls in net, http, http2, dns and worker_threads.
const NOT_AT_IMPORT = String.raw`/node_modules[\/](ws|zod|undici)[\/]|[\/]dist[\/]testing[\/]/`;
for (const [label, args] of [
  ['require', ['-e', `require('./dist/index.cjs'); process.stdout.write(JSON.stringify(Object.keys(require.cache).filter((k) => ${NOT_AT_IMPORT}.test(k))))`]],
  [
    'import',
    [
      '--input-type=module',
      '-e',
      `await import('./dist/index.js'); const { createRequire } = await import('node:module'); const cache = createRequire(process.cwd() + '/').cache; process.stdout.write(JSON.stringify(Object.keys(cache).filter((k) => ${NOT_AT_IMPORT}.test(k))))`,
    ],
  ],
]) {
  await check(`${label}: the main entry loads neither undici, ws nor zod, nor the testing kit, until they are used`, () => {
    const loaded = JSON.parse(execFileSync(process.execPath, args, { cwd: new URL('../..', import.meta.url), encoding: 'utf8' }));
    assert.deepEqual(loaded, [], `${label}: loaded at import time`);
  });
}

await check('the edge build on Node (a runtime it does not detect as an edge one): fetch by default, the Gateway refused before any request', async () => {
  const edge = await import('../../dist/edge/index.js');
  const before = requestsSeen.length;
  // Its undici transport refuses to be built: a client made with default options proves the default is fetch.
  const client = new edge.Client({ baseUrl, auth: { botToken: 'smoke-token' } });
  assert.equal((await client.channels.get('ch1')).id, 'ch1');
  const refusal = await client.gateway.connect().catch((error) => error);
  assert.equal(refusal?.name, 'GatewayError', `connect() in the edge build gave ${refusal}`);
  assert.match(refusal.message, /createWebhookReceiver/);
  assert.deepEqual(requestsSeen.slice(before), ['/api/v1/channels/ch1'], 'requests of the edge-build client');
  await client.close();
});

await check('errors from one copy are recognised by the other', async () => {
  const client = new cjs.Client({ baseUrl, auth: { botToken: 'smoke-token' } });
  const error = await client.channels.get('missing').catch((e) => e);
  assert.equal(error instanceof esm.NotFoundError, false);
  assert.equal(esm.isCommunityChatError(error, 'NotFoundError'), true);
  assert.equal(esm.isCommunityChatError(error, 'ApiError'), true);
  assert.equal(esm.isCommunityChatError(error, 'RateLimitError'), false);
  await client.close();
});

await check('a TransportFailure made through the transport entry alone carries its brand: the other copy retries it as a network failure', async () => {
  // A fresh process loading only `community-chat-sdk/transport`: the error classes brand themselves where they are defined.
  const script = `const t = await import('./dist/transport.js'); const f = new t.TransportFailure('network', 'ECONNRESET', true, undefined); process.stdout.write(JSON.stringify([f[Symbol.for('community-chat-sdk.error.kind')], Object.getPrototypeOf(Object.getPrototypeOf(f))[Symbol.for('community-chat-sdk.error.kind')]]))`;
  const brands = JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: new URL('../..', import.meta.url), encoding: 'utf8' }),
  );
  assert.deepEqual(
    brands,
    ['TransportFailure', 'CommunityChatError'],
    'the brands of a TransportFailure and its parent, with the transport entry alone loaded',
  );
  // And the pipeline of the other copy (CJS) takes an ESM copy's failure for what it is: retried, then a NetworkError.
  let sends = 0;
  const transport = {
    send: async () => {
      sends++;
      throw new esmTransport.TransportFailure('network', 'ECONNRESET', true, undefined);
    },
    close: async () => undefined,
  };
  const client = new cjs.Client({ baseUrl, auth: { botToken: 'smoke-token' }, transport, retries: 2 });
  const error = await client.channels.get('ch1').catch((e) => e);
  assert.equal(cjs.isCommunityChatError(error, 'NetworkError'), true, `a foreign TransportFailure became ${error?.name}`);
  assert.equal(sends, 3, 'sends of a call retried twice');
  await client.close();
});

server.close();
console.log(`smoke (node ${process.version}): ${passed} passed, ${failed} failed`);
process.exitCode = failed === 0 ? 0 : 1;
