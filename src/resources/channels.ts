import { ValidationError, type ValidationIssue } from '../errors.js';
import { validate } from '../schemas/validate.js';
import type { CallOptions } from '../rest/options.js';
import type { RestClient } from '../rest/rest-client.js';
import type { UpdateChannelRequest } from '../schemas/requests.js';
import type { Attachment, Channel, DriveLink } from '../schemas/responses.js';

/** A file to upload as a channel attachment. */
export interface AttachmentUpload {
  /** The file's bytes. */
  data: Blob | Uint8Array | ArrayBuffer | string;
  /** File name shown to users. */
  filename: string;
  /** Media type. @default "application/octet-stream" (or the Blob's own type) */
  contentType?: string | undefined;
  /** Extra form fields sent beside the file. */
  fields?: Record<string, string> | undefined;
}

/** Channels: read, update, delete, acknowledge, attachments and drive links. User or bot credentials. */
export class ChannelsManager {
  constructor(
    private readonly rest: RestClient,
    private readonly attachmentFieldName: string,
  ) {}

  /** `GET /channels/{channel_id}`. */
  get(channelId: string, options?: CallOptions): Promise<Channel> {
    return this.rest.request('channels.get', { ...options, params: { channel_id: channelId } });
  }

  /** `PATCH /channels/{channel_id}`. */
  async update(channelId: string, changes: UpdateChannelRequest, options?: CallOptions): Promise<Channel> {
    const body = await validate('channels.update', 'updateChannelSchema', changes);
    return this.rest.request('channels.update', { ...options, params: { channel_id: channelId }, body });
  }

  /** `DELETE /channels/{channel_id}`. */
  delete(channelId: string, options?: CallOptions): Promise<void> {
    return this.rest.request('channels.delete', { ...options, params: { channel_id: channelId } });
  }

  /** `POST /channels/{channel_id}/ack`: marks the channel as read. */
  ack(channelId: string, options?: CallOptions): Promise<void> {
    return this.rest.request('channels.ack', { ...options, params: { channel_id: channelId } });
  }

  /**
   * `POST /channels/{channel_id}/attachments`: uploads a file as
   * `multipart/form-data` (the encoding is assumed; see docs/assumptions.md).
   */
  async uploadAttachment(channelId: string, upload: AttachmentUpload, options?: CallOptions): Promise<Attachment> {
    const issues: ValidationIssue[] = [];
    if (typeof upload?.filename !== 'string' || upload.filename === '') issues.push({ path: 'filename', message: 'must be a non-empty string' });
    const data = upload?.data;
    if (!(data instanceof Blob || data instanceof Uint8Array || data instanceof ArrayBuffer || typeof data === 'string')) {
      issues.push({ path: 'data', message: 'must be a Blob, Uint8Array, ArrayBuffer or string' });
    }
    if (issues.length > 0) return Promise.reject(new ValidationError('channels.uploadAttachment', issues));
    const type = upload.contentType ?? (data instanceof Blob && data.type ? data.type : 'application/octet-stream');
    const blob = data instanceof Blob && upload.contentType === undefined ? data : new Blob([data as Uint8Array], { type });
    const form = new FormData();
    for (const [name, value] of Object.entries(upload.fields ?? {})) form.append(name, value);
    form.append(this.attachmentFieldName, blob, upload.filename);
    return this.rest.request('channels.uploadAttachment', { ...options, params: { channel_id: channelId }, formData: form });
  }

  /** `GET /channels/{channel_id}/drive-links`. */
  listDriveLinks(channelId: string, options?: CallOptions): Promise<DriveLink[]> {
    return this.rest.request('channels.listDriveLinks', { ...options, params: { channel_id: channelId } });
  }
}
