import { ValidationError, type ValidationIssue } from '../errors/index.js';
import { validate } from '../schemas/validate.js';
import { withId } from './response-ids.js';
import { MultipartBody, type MultipartFileSource } from '../rest/multipart.js';
import type { CallOptions } from '../rest/options.js';
import type { RestClient } from '../rest/rest-client.js';
import type { UpdateChannelRequest } from '../schemas/request-types.js';
import type { Attachment, Channel, DriveLink } from '../schemas/responses.js';

/**
 * A file to upload as a channel attachment. `data` may be bytes in memory, a
 * `Blob` (`fs.openAsBlob(path)` gives one backed by a file, read as it is
 * sent), or a stream (web `ReadableStream`, Node `Readable`, any async
 * iterable of bytes). Files and streams are sent chunk by chunk, never read
 * into memory whole.
 */
export interface AttachmentUpload {
  /** The file's bytes. */
  data: Blob | Uint8Array | ArrayBuffer | string | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array | string>;
  /** File name shown to users. */
  filename: string;
  /** Media type. @default "application/octet-stream" (or the Blob's own type) */
  contentType?: string | undefined;
  /** Extra form fields sent beside the file. */
  fields?: Record<string, string> | undefined;
  /**
   * Byte length of a stream `data`, when known: the upload then carries a
   * `Content-Length` (and fails if the stream yields another length);
   * without it the body goes out with chunked transfer encoding. Ignored for
   * other kinds of `data`, whose length is known.
   * @default undefined (unknown)
   */
  size?: number | undefined;
}

type Source = AttachmentUpload['data'];

function isStream(data: Source): data is ReadableStream<Uint8Array> | AsyncIterable<Uint8Array | string> {
  if (typeof data !== 'object' || data === null || data instanceof Blob || data instanceof Uint8Array || data instanceof ArrayBuffer) return false;
  return typeof (data as ReadableStream).getReader === 'function' || typeof (data as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function';
}

/** Why a stream cannot be uploaded any more (already read or locked), or `undefined`. */
function usedStream(data: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array | string>): string | undefined {
  if (typeof (data as ReadableStream).getReader === 'function')
    return (data as ReadableStream).locked ? 'is a ReadableStream that is locked (already being read)' : undefined;
  const node = data as { readableDidRead?: boolean; readableEnded?: boolean; destroyed?: boolean };
  return node.readableDidRead === true || node.readableEnded === true || node.destroyed === true ? 'is a stream that was already read or destroyed' : undefined;
}

function uploadIssues(upload: AttachmentUpload | undefined): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (typeof upload?.filename !== 'string' || upload.filename === '') issues.push({ path: 'filename', message: 'must be a non-empty string' });
  const data = upload?.data;
  if (
    data === undefined ||
    data === null ||
    !(data instanceof Blob || data instanceof Uint8Array || data instanceof ArrayBuffer || typeof data === 'string' || isStream(data))
  ) {
    issues.push({ path: 'data', message: 'must be a Blob, Uint8Array, ArrayBuffer, string, ReadableStream, Node Readable or async iterable of bytes' });
  } else if (isStream(data)) {
    const used = usedStream(data);
    if (used !== undefined) issues.push({ path: 'data', message: used });
  }
  const size = upload?.size;
  if (size !== undefined && !(Number.isSafeInteger(size) && size >= 0)) issues.push({ path: 'size', message: 'must be a whole number of bytes, 0 or more' });
  return issues;
}

/** Channels: read, update, delete, acknowledge, attachments and drive links. User or bot credentials. */
export class ChannelsManager {
  constructor(
    private readonly rest: RestClient,
    private readonly attachmentFieldName: string,
    /** Whether responses must carry a string `id` (the client option `requireResponseIds`). @default true */
    private readonly requireIds: boolean = true,
  ) {}

  /** `GET /channels/{channel_id}`. */
  async get(channelId: string, options?: CallOptions): Promise<Channel> {
    return withId('channels.get', await this.rest.request('channels.get', { ...options, params: { channel_id: channelId } }), this.requireIds);
  }

  /** `PATCH /channels/{channel_id}`. */
  async update(channelId: string, changes: UpdateChannelRequest, options?: CallOptions): Promise<Channel> {
    const body = await validate('channels.update', 'updateChannelSchema', changes);
    return withId('channels.update', await this.rest.request('channels.update', { ...options, params: { channel_id: channelId }, body }), this.requireIds);
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
   * `multipart/form-data` (the encoding is assumed; see docs/assumptions.md),
   * streamed: a `Blob` or stream is read only as the bytes go out.
   *
   * A `Blob` upload is retried like any POST (after a 429, or when it was
   * provably never sent). A stream can be read once: if an attempt has
   * started reading it, the SDK never sends it again (a retry would send a
   * truncated or empty body), and the call rejects with a `NetworkError`
   * whose message says so.
   *
   * @example
   * ```ts
   * import { openAsBlob } from 'node:fs';
   * await client.channels.uploadAttachment('123', { data: await openAsBlob('video.mp4'), filename: 'video.mp4', contentType: 'video/mp4' });
   * ```
   */
  async uploadAttachment(channelId: string, upload: AttachmentUpload, options?: CallOptions): Promise<Attachment> {
    const issues = uploadIssues(upload);
    if (issues.length > 0) throw new ValidationError('channels.uploadAttachment', issues);
    const { data } = upload;
    const type = upload.contentType ?? (data instanceof Blob && data.type ? data.type : 'application/octet-stream');
    let source: MultipartFileSource;
    if (isStream(data)) source = data;
    else if (data instanceof Blob) source = upload.contentType === undefined ? data : data.slice(0, data.size, type);
    else source = new Blob([data as Uint8Array], { type });
    const fields = Object.entries(upload.fields ?? {}).map(([name, value]) => ({ name, value }));
    const form = new MultipartBody([
      ...fields,
      { name: this.attachmentFieldName, filename: upload.filename, contentType: type, source, size: isStream(data) ? upload.size : undefined },
    ]);
    return this.rest.request('channels.uploadAttachment', { ...options, params: { channel_id: channelId }, formData: form });
  }

  /** `GET /channels/{channel_id}/drive-links`. */
  listDriveLinks(channelId: string, options?: CallOptions): Promise<DriveLink[]> {
    return this.rest.request('channels.listDriveLinks', { ...options, params: { channel_id: channelId } });
  }
}
