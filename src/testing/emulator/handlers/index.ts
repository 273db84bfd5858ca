/**
 * Every contract operation's handler, one file per resource (mirroring
 * src/resources/). The table must name every `OperationId`: a missing
 * operation is a compile error.
 *
 * @module
 */

import { activityHandlers } from './activities.js';
import { applicationWebhookHandlers } from './application-webhooks.js';
import { applicationHandlers } from './applications.js';
import { authHandlers } from './auth.js';
import { botHandlers } from './bots.js';
import { channelHandlers } from './channels.js';
import { commandHandlers } from './commands.js';
import { interactionHandlers } from './interactions.js';
import type { HandlerTable } from './types.js';
import { userHandlers } from './users.js';
import { webhookHandlers } from './webhooks.js';

export const handlers: HandlerTable = {
  ...activityHandlers,
  ...applicationHandlers,
  ...applicationWebhookHandlers,
  ...authHandlers,
  ...botHandlers,
  ...channelHandlers,
  ...commandHandlers,
  ...interactionHandlers,
  ...userHandlers,
  ...webhookHandlers,
} satisfies HandlerTable;

export { createDriveLink } from './channels.js';
export { followUp, respondWithToken } from './interactions.js';
export type { Context, Handler, HandlerTable, RouteContext } from './types.js';
