// The workerd scenario: examples/cloudflare-worker, bundled as wrangler bundles it (the SDK's workerd
// export), runs in Cloudflare's workerd (through miniflare) and answers /ping as a signed HTTP delivery
// from the emulator in this Node process: its handler makes a REST call (GET /users/@me) and replies
// with fetch, under ctx.waitUntil. The same Worker's probe route shows the Gateway refused there.
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { bundleWorker } from '../../scripts/bundle-worker.mjs';
import { CLEANUP_MS, expectEqual, startEmulatorWithPing, step, withCleanup } from './scenario.mjs';

const PROBE = fileURLToPath(new URL('./worker.ts', import.meta.url));
/** The ceiling for a Worker with the receiver, the router and the REST client, gzipped. */
export const WORKER_GZIP_LIMIT = 100 * 1024;
/** Packages only Node runs: none may be in a Worker's bundle (the edge build of every entry leaves them out). */
const NODE_ONLY_PACKAGES = /[\\/]node_modules[\\/](undici|ws)[\\/]/;

/** Throws naming the bundle and the files when `bundle` holds a Node-only package. */
function expectEdgeOnly(runtime, name, bundle) {
  const nodeOnly = bundle.inputs.filter(({ file }) => NODE_ONLY_PACKAGES.test(file)).map(({ file }) => file);
  if (nodeOnly.length > 0) throw new Error(`${runtime}: ${name} bundles Node-only packages: ${nodeOnly.slice(0, 5).join(', ')}`);
}

/** Runs the scenario; resolves with a one-line account, rejects naming the failed step. */
export async function workerdScenario(runtime = 'workerd') {
  const started = performance.now();
  const { Log, LogLevel, Miniflare } = await import('miniflare');
  // The size guard first: a Node-only module pulled into the edge build shows here before anything runs.
  const example = await bundleWorker();
  const gzipped = gzipSync(example.code).byteLength;
  if (gzipped > WORKER_GZIP_LIMIT)
    throw new Error(`${runtime}: the example Worker bundles to ${(gzipped / 1024).toFixed(1)} KB gzipped, over the 100 KB limit`);
  expectEdgeOnly(runtime, 'the example Worker', example);
  // The probe imports community-chat-sdk/transport too: its workerd condition must keep undici out as the main entry's does.
  const probeBundle = await bundleWorker({ entry: PROBE });
  expectEdgeOnly(runtime, 'the probe Worker (community-chat-sdk and community-chat-sdk/transport)', probeBundle);
  const { code } = probeBundle;
  const { emulator, admin, botName, close } = await startEmulatorWithPing(runtime);
  const appId = emulator.seed.applicationId;
  let worker;
  const scenario = async () => {
    // The webhook's secret is the Worker's binding, and the Worker's address its URL: create it, start the Worker, then point it there.
    const hook = await step(
      runtime,
      'create the application webhook',
      admin.applicationWebhooks.create(appId, { url: 'http://127.0.0.1:9/interactions', events: ['INTERACTION_CREATE'] }),
    );
    worker = new Miniflare({
      modules: true,
      script: code,
      compatibilityDate: '2026-04-26',
      compatibilityFlags: ['nodejs_compat'],
      bindings: { CHAT_BOT_TOKEN: emulator.seed.botToken, CHAT_WEBHOOK_SECRET: String(hook.secret), CHAT_BASE_URL: emulator.url },
      host: '127.0.0.1',
      port: 0,
      cf: false,
      log: new Log(LogLevel.WARN),
    });
    const url = await step(runtime, 'start the Worker', worker.ready);
    const probe = await step(
      runtime,
      'gateway.connect() inside the Worker',
      fetch(new URL('/gateway-probe', url)).then((response) => response.text()),
    );
    if (!/^GatewayError: .*edge runtimes .* do not run.*createWebhookReceiver/.test(probe)) {
      throw new Error(`${runtime}: gateway.connect() in the Worker should be refused pointing to HTTP interactions; it gave: ${probe}`);
    }
    const viaTransport = await step(
      runtime,
      'REST call with FetchTransport from community-chat-sdk/transport inside the Worker',
      fetch(new URL('/transport-probe', url)).then((response) => response.text()),
    );
    expectEqual(runtime, 'the name GET /users/@me read through community-chat-sdk/transport', viaTransport, botName);
    await step(runtime, "point the webhook at the Worker's URL", admin.applicationWebhooks.update(appId, hook.id, { url: new URL('/interactions', url).href }));
    const interaction = emulator.invokeCommand({ name: 'ping' });
    expectEqual(runtime, '/ping went out as a webhook delivery', interaction.via, 'webhook');
    const answer = await step(runtime, 'answer /ping (REST call, then the reply)', interaction.response);
    expectEqual(runtime, "the Worker's answer to /ping", answer.data?.content, `Pong from ${botName} on Workers`);
    const deliveries = (await step(runtime, 'list the webhook deliveries', admin.applicationWebhooks.listDeliveries(appId, { page: 1, perPage: 10 }))).items;
    const delivery = deliveries.find((item) => item.id === interaction.deliveryIds[0]);
    expectEqual(runtime, "the Worker's HTTP answer to the signed delivery", delivery?.response_status, 200);
    const closing = performance.now();
    const disposing = worker;
    worker = undefined;
    await step(runtime, 'dispose the Worker', disposing.dispose(), CLEANUP_MS);
    return `bundle ${(gzipped / 1024).toFixed(1)} KB gzipped; Gateway refused with the pointer to HTTP interactions; /ping answered as a signed HTTP delivery with a REST call; disposed in ${Math.round(performance.now() - closing)} ms (${Math.round(performance.now() - started)} ms in all)`;
  };
  // Whatever happened: the Worker (unless already disposed) and the emulator go, each within its deadline.
  return withCleanup(runtime, scenario, () => [
    ...(worker === undefined ? [] : [['dispose the Worker after a failure', () => worker.dispose()]]),
    ['close the emulator', close],
  ]);
}
