// Loads the built package through import() and require() and uses both copies
// against a real loopback server. Run after `npm run build`, on every Node we support.
import assert from 'node:assert/strict';
import http from 'node:http';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const esm = await import('../../dist/index.js');
const cjs = require('../../dist/index.cjs');

const server = http.createServer((request, response) => {
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

for (const [label, sdk] of [['import', esm], ['require', cjs]]) {
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
  await check(`${label}: webhook execution through the bundled p-queue`, async () => {
    const client = new sdk.Client({ baseUrl, auth: { webhookTokens: { w1: 'smoke-hook-token' } } });
    const results = await Promise.all([1, 2, 3].map((i) => client.webhooks.execute('w1', { content: `m${i}` })));
    assert.equal(results.length, 3);
    await client.close();
  });
  await check(`${label}: validation`, async () => {
    const client = new sdk.Client({ baseUrl, auth: { botToken: 'smoke-token' } });
    await assert.rejects(client.webhooks.execute({ id: 'w', token: 't' }, { content: '' }), (error) => sdk.isValidationError(error));
  });
}

await check('errors from one copy are recognised by the other', async () => {
  const client = new cjs.Client({ baseUrl, auth: { botToken: 'smoke-token' } });
  const error = await client.channels.get('missing').catch((e) => e);
  assert.equal(error instanceof esm.NotFoundError, false);
  assert.equal(esm.isNotFoundError(error), true);
  assert.equal(esm.isApiError(error), true);
  assert.equal(esm.isRateLimitError(error), false);
  await client.close();
});

server.close();
console.log(`smoke (node ${process.version}): ${passed} passed, ${failed} failed`);
process.exitCode = failed === 0 ? 0 : 1;
