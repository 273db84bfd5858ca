/**
 * Run by a test in a fresh process (`startScript`): imports the SDK's main
 * entry with a spy on every lazily built global (`FormData`, `fetch`,
 * `WebSocket` ...: reading one makes Node load what builds it, its fetch
 * implementation for most), then builds a `MultipartBody` (from
 * `community-chat-sdk/transport`). Prints one JSON
 * line: the globals read by the import, and what the body is.
 */
const read: string[] = [];
for (const name of Object.getOwnPropertyNames(globalThis)) {
  const descriptor = Object.getOwnPropertyDescriptor(globalThis, name);
  if (descriptor?.get === undefined || !descriptor.configurable) continue;
  const { get, set, enumerable } = descriptor;
  Object.defineProperty(globalThis, name, {
    configurable: true,
    enumerable: enumerable === true,
    get() {
      read.push(name);
      return get.call(this);
    },
    ...(set === undefined ? {} : { set }),
  });
}
await import('../../src/index.js');
const byImport = [...read];
// MultipartBody is published by community-chat-sdk/transport (what a transport is handed); the main entry loads it too.
const { MultipartBody } = await import('../../src/transport.js');
const body = new MultipartBody([{ name: 'a', value: 'b' }]);
const from = MultipartBody.from(new FormData());
process.stdout.write(
  `${JSON.stringify({
    byImport,
    isFormData: body instanceof FormData,
    isMultipart: body instanceof MultipartBody && from instanceof MultipartBody,
    entries: [...body.entries()],
    tag: Object.prototype.toString.call(body),
  })}\n`,
);
