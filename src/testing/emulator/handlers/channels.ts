/**
 * Channels: read, update, delete, acknowledge, upload an attachment, and
 * drive links (listing is a contract operation; creating one is not shown by
 * the contract and is served as the escape hatch's example, see the router).
 *
 * @module
 */

import * as schemas from '../../../schemas/requests.js';
import { actorId, channelFor, type Member } from '../access.js';
import { HttpError, json, noContent, parseJson, validate } from '../responses.js';
import { channelView } from '../views.js';
import type { EmulatorState } from '../state.js';
import type { EmulatorRequest, EmulatorResponse } from '../types.js';
import type { HandlersOf } from './types.js';

export const channelHandlers = {
  'channels.get': ({ state, params, caller }) => json(200, channelView(channelFor(state, caller, params.channel_id))),
  'channels.update': ({ state, request, params, caller }) => {
    const channel = channelFor(state, caller, params.channel_id);
    const { name, topic, ...extra } = validate(schemas.updateChannelSchema, request.body);
    if (typeof name === 'string') {
      if (name.length < 1 || name.length > 100) throw new HttpError(400, 'Invalid Form Body', 50035, { errors: { name: 'must be 1 to 100 characters' } });
      channel.name = name;
    }
    if (typeof topic === 'string') channel.topic = topic;
    Object.assign(channel.extra, extra);
    return json(200, channelView(channel));
  },
  'channels.delete': ({ state, params, caller }) => {
    state.channels.delete(channelFor(state, caller, params.channel_id).id);
    return noContent();
  },
  'channels.ack': ({ state, params, caller }) => {
    channelFor(state, caller, params.channel_id).readBy.add(actorId(caller));
    return noContent();
  },
  'channels.uploadAttachment': ({ state, request, params, caller }) => {
    const channel = channelFor(state, caller, params.channel_id);
    const type = request.headers['content-type'] ?? '';
    const boundary = /boundary=([^;]+)/.exec(type)?.[1];
    if (!type.startsWith('multipart/form-data') || !boundary) throw new HttpError(400, 'Expected multipart/form-data with a file', 50035);
    const part = request.body.split(`--${boundary}`).find((chunk) => /filename="/.test(chunk));
    if (!part) throw new HttpError(400, 'No file in the upload', 50035);
    const filename = /filename="([^"]*)"/.exec(part)?.[1] ?? 'file';
    const contentType = /Content-Type: ([^\r\n]+)/i.exec(part)?.[1] ?? 'application/octet-stream';
    const content = part.slice(part.indexOf('\r\n\r\n') + 4).replace(/\r\n$/, '');
    const id = state.id();
    return json(200, {
      id,
      filename,
      size: Buffer.byteLength(content),
      content_type: contentType,
      url: `${state.baseUrl}/attachments/${channel.id}/${id}/${encodeURIComponent(filename)}`,
    });
  },
  'channels.listDriveLinks': ({ state, params, caller }) => json(200, state.driveLinks.get(channelFor(state, caller, params.channel_id).id) ?? []),
} satisfies HandlersOf<'channels'>;

/** POST /channels/{channel_id}/drive-links: not a contract operation (its shape is not shown), served for the SDK's escape hatch. */
export function createDriveLink(state: EmulatorState, request: EmulatorRequest, caller: Member, channelId: string): EmulatorResponse {
  const channel = channelFor(state, caller, channelId);
  const body = parseJson(request.body);
  if (typeof body !== 'object' || body === null || typeof (body as { url?: unknown }).url !== 'string') throw new HttpError(400, 'url is required', 50035);
  const link = { id: state.id(), ...(body as Record<string, unknown>) };
  state.driveLinks.set(channel.id, [...(state.driveLinks.get(channel.id) ?? []), link]);
  return json(201, link);
}
