/**
 * Run by a test in a fresh process (`startScript`): makes loading zod fail (a
 * module hook that throws when anything resolves to zod's package), checks the
 * hook bites (`import('zod')` must fail), then imports `from-dispatch.ts` and
 * builds an accepted and a refused payload. Prints one JSON line: whether the
 * hook bit, the kind built, and the refused payload's issues.
 */
import { register } from 'node:module';

const hook = `export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (/[\\\\/]node_modules[\\\\/]zod[\\\\/]/.test(resolved.url)) throw new Error('zod was loaded: ' + specifier + ' from ' + context.parentURL);
  return resolved;
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);

let hookBites = false;
try {
  await import('zod');
} catch {
  hookBites = true;
}
const { interactionFromDispatch } = await import('../../src/interactions/from-dispatch.js');
const respond = async () => undefined;
const now = () => 1_700_000_000_000;
const accepted = interactionFromDispatch({ id: 'i1', type: 2, token: 'tok-abcdef', data: { name: 'quiz' } }, respond, now);
const refused = interactionFromDispatch({ id: 'i2', type: 2 }, respond, now);
process.stdout.write(
  `${JSON.stringify({
    hookBites,
    kind: accepted.ok ? accepted.interaction.kind : accepted.error.message,
    issues: refused.ok ? [] : (refused.error as { issues?: unknown }).issues,
  })}\n`,
);
