/**
 * The page's API: what a person can do on the playground. Each action takes
 * a JSON body and answers JSON; errors answer 400 with a message (scrubbed of
 * every secret).
 *
 * @module
 */

import { redactValue, scrubText } from '../../core/redact.js';
import { wait } from '../../core/wait.js';
import { operationIds, type OperationId } from '../../core/routes.js';
import type { EmulatorCore } from '../emulator/core.js';
import { FAULT_STATUSES } from '../emulator/faults.js';

/** What an action can reach. */
interface ActionContext {
  /** The emulator's core. */
  core: EmulatorCore;
  /** Drops every Gateway connection. */
  dropGateway: () => void;
  /** Asks the hub for a fresh picture. */
  changed: () => void;
}

/** An action's answer. */
interface ActionAnswer {
  /** HTTP status. */
  status: number;
  /** JSON body. */
  body: unknown;
}

/** How long the page waits for the bot's autocomplete choices. */
const AUTOCOMPLETE_TIMEOUT_MS = 3000;

type Body = Record<string, unknown>;

const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

function optionsOf(value: unknown): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  if (typeof value !== 'object' || value === null) return out;
  for (const [name, item] of Object.entries(value as Body))
    if (typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean') out[name] = item;
  return out;
}

function place(body: Body): { userId: string | undefined; channelId: string | undefined; guildId: string | undefined } {
  return { userId: str(body['userId']), channelId: str(body['channelId']), guildId: str(body['guildId']) };
}

function finite(value: unknown, min: number, max: number): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? Math.min(max, Math.max(min, value)) : undefined;
}

const actions: Record<string, (body: Body, ctx: ActionContext) => Promise<ActionAnswer> | ActionAnswer> = {
  invoke: (body, { core }) => {
    const run = core.invokeCommand({ name: String(body['name'] ?? ''), options: optionsOf(body['options']), ...place(body) });
    return { status: 200, body: { id: run.id, delivered: run.delivered } };
  },
  autocomplete: async (body, { core }) => {
    const run = core.invokeCommand({
      name: String(body['name'] ?? ''),
      options: optionsOf(body['options']),
      focused: String(body['focused'] ?? ''),
      ...place(body),
    });
    if (run.delivered === 0) return { status: 200, body: { choices: [], note: 'no bot is connected' } };
    // Without an answer in time, the wait resolves undefined (its timer cleared either way).
    const answer = await wait(run.response, { timeoutMs: AUTOCOMPLETE_TIMEOUT_MS });
    const choices = answer?.data['choices'];
    return { status: 200, body: { choices: Array.isArray(choices) ? choices : [], ...(answer ? {} : { note: 'the bot did not answer in time' }) } };
  },
  component: (body, { core }) => {
    const values = Array.isArray(body['values']) ? body['values'].map(String) : undefined;
    const run = core.clickComponent({
      messageId: String(body['messageId'] ?? ''),
      customId: String(body['customId'] ?? ''),
      values,
      userId: str(body['userId']),
    });
    return { status: 200, body: { id: run.id, delivered: run.delivered } };
  },
  modal: (body, { core }) => {
    const fields: Record<string, string> = {};
    const given = typeof body['fields'] === 'object' && body['fields'] !== null ? (body['fields'] as Body) : {};
    for (const [id, value] of Object.entries(given)) fields[id] = String(value ?? '');
    const run = core.submitModal({ interactionId: String(body['interactionId'] ?? ''), fields, userId: str(body['userId']) });
    return { status: 200, body: { id: run.id, delivered: run.delivered } };
  },
  faults: (body, { core, changed }) => {
    const latency = finite(body['latencyMs'], 0, 60_000);
    const errorRate = finite(body['errorRate'], 0, 1);
    if (latency !== undefined) core.faults.latencyMs = latency;
    if (errorRate !== undefined) core.faults.errorRate = errorRate;
    if ('globalLimit' in body) {
      const limit = finite(body['globalLimit'], 1, 1_000_000);
      core.globalRateLimit = limit === undefined ? undefined : { limit, windowMs: 1000 };
    }
    changed();
    return { status: 200, body: { faults: core.faults, globalLimit: core.globalRateLimit ?? null } };
  },
  activity: (body, { core }) => {
    core.setActivityPaused(String(body['activityId'] ?? ''), body['paused'] === true);
    return { status: 200, body: { paused: body['paused'] === true } };
  },
  fault: (body, { core, changed }) => {
    const operation = str(body['operation']) ?? '*';
    if (operation !== '*' && !(operationIds as readonly string[]).includes(operation))
      return { status: 400, body: { message: `unknown operation ${operation}` } };
    const status = FAULT_STATUSES.find((candidate) => candidate === body['status']);
    if (status === undefined && body['reset'] !== true)
      return { status: 400, body: { message: 'status must be one of 401, 403, 404, 429, 500, 503, or reset: true' } };
    const fault = core.faults.next({
      operation: operation as OperationId | '*',
      times: finite(body['times'], 1, 1000) ?? 1,
      ...(status === undefined ? { reset: true } : { status }),
    });
    changed();
    return { status: 200, body: { fault: fault.input } };
  },
  drop: (_body, { dropGateway, changed }) => {
    dropGateway();
    changed();
    return { status: 200, body: { dropped: true } };
  },
  advance: (body, { core }) => {
    const ms = finite(body['ms'], 0, 7 * 24 * 3_600_000) ?? 15 * 60_000;
    core.advanceTime(ms);
    return { status: 200, body: { now: core.now() } };
  },
};

/** Runs one action of the page's API. */
export async function runAction(name: string, text: string, ctx: ActionContext): Promise<ActionAnswer> {
  const action = Object.hasOwn(actions, name) ? actions[name] : undefined;
  if (!action) return { status: 404, body: { error: `unknown action ${name}` } };
  let body: Body;
  try {
    const parsed: unknown = text === '' ? {} : JSON.parse(text);
    body = typeof parsed === 'object' && parsed !== null ? (parsed as Body) : {};
  } catch {
    return { status: 400, body: { error: 'the body is not JSON' } };
  }
  try {
    const answer = await action(body, ctx);
    return { status: answer.status, body: redactValue(answer.body, ctx.core.secrets()) };
  } catch (error) {
    return { status: 400, body: { error: scrubText(error instanceof Error ? error.message : String(error), ctx.core.secrets()) } };
  }
}
