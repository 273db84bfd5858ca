/**
 * Page-based pagination (`page` and `per_page`), shared by api-logs and
 * webhook-deliveries.
 *
 * @module
 */

import { TimeoutError, UnexpectedResponseError } from '../errors/index.js';
import type { CallOptions } from '../rest/options.js';
import type { RestClient } from '../rest/rest-client.js';
import type { OperationId } from '../core/routes.js';
import { validate } from '../schemas/validate.js';
import type { PageQuery } from '../schemas/request-types.js';
import type { Page } from '../schemas/responses.js';

const ITEM_KEYS = ['items', 'data', 'results', 'entries', 'logs', 'deliveries'];

/**
 * Finds the items of a page body. The body's shape is not shown in the
 * contract: a bare array is used as is; otherwise the first array under a
 * common key (items, data, results, entries, logs, deliveries) or the first
 * array-valued field.
 */
export function extractPageItems<T>(raw: unknown): T[] {
  if (Array.isArray(raw)) return raw as T[];
  if (typeof raw !== 'object' || raw === null) return [];
  const record = raw as Record<string, unknown>;
  for (const key of ITEM_KEYS) if (Array.isArray(record[key])) return record[key] as T[];
  for (const value of Object.values(record)) if (Array.isArray(value)) return value as T[];
  return [];
}

function isLastPage(raw: unknown, page: number, perPage: number, count: number): boolean {
  if (count === 0) return true;
  // What the service says wins over counting: a service that caps the page size still says has_more.
  if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
    const record = raw as Record<string, unknown>;
    if (record['has_more'] === true) return false;
    if (record['has_more'] === false) return true;
    const total = record['total_pages'];
    if (typeof total === 'number') return page >= total;
    const served = record['per_page'];
    if (typeof served === 'number' && served > 0) return count < served;
  }
  return count < perPage;
}

/** A cheap fingerprint of a page's items, to notice a service that ignores `page` and serves the same page again. */
function fingerprint(items: readonly unknown[]): string {
  const edge = (item: unknown) =>
    typeof item === 'object' && item !== null && 'id' in item ? String((item as { id: unknown }).id) : (JSON.stringify(item) ?? '');
  return `${items.length}:${edge(items[0])}:${edge(items[items.length - 1])}`;
}

/** Options of a paginated list: which page, how many items per page, how far to walk, and the call options. */
export interface ListOptions extends CallOptions, PageQuery {
  /** When walking with `for await`: stop after this many pages. @default Infinity */
  maxPages?: number | undefined;
  /** The call's deadline in milliseconds; when walking with `for await`, the whole walk's (each page's request also keeps its own timeout). @default none */
  deadlineMs?: number | undefined;
}

/**
 * A paginated list: `await` it for one page (`page`, `perPage`, the items
 * and the raw body), or walk it with `for await` for every item from `page`
 * on, one request per page. Nothing is sent until it is awaited or walked.
 *
 * @example
 * ```ts
 * const first = await client.applications.listApiLogs(appId, { perPage: 20 });
 * for await (const entry of client.applications.listApiLogs(appId, { perPage: 50, maxPages: 4 })) console.log(entry);
 * ```
 */
export class PageList<T> implements Promise<Page<T>>, AsyncIterable<T> {
  /** `PageList`: a promise of one page, also walkable. */
  readonly [Symbol.toStringTag] = 'PageList';
  #page: Promise<Page<T>> | undefined;
  readonly #rest: RestClient;
  readonly #operation: OperationId;
  readonly #params: Record<string, string>;
  readonly #options: ListOptions;

  /** @internal */
  constructor(rest: RestClient, operation: OperationId, params: Record<string, string>, options: ListOptions | undefined) {
    this.#rest = rest;
    this.#operation = operation;
    this.#params = params;
    this.#options = options ?? {};
  }

  /** Fetches the one page asked for (once, however often it is awaited). */
  // biome-ignore lint/suspicious/noThenProperty: a PageList is a promise of its page by design (awaitable and walkable)
  then<A = Page<T>, B = never>(
    onFulfilled?: ((page: Page<T>) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    const { page, perPage, maxPages: _walkOnly, ...callOptions } = this.#options;
    this.#page ??= fetchPage<T>(this.#rest, this.#operation, this.#params, { page, perPage }, callOptions);
    return this.#page.then(onFulfilled, onRejected);
  }

  /** The same as `then(undefined, onRejected)`. */
  catch<B = never>(onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<Page<T> | B> {
    return this.then(undefined, onRejected);
  }

  /** The same as `then(onFinally, onFinally)`, passing the page or the error through. */
  finally(onFinally?: (() => void) | null): Promise<Page<T>> {
    return this.then().finally(onFinally);
  }

  /** Walks every item from the page asked for on. */
  [Symbol.asyncIterator](): AsyncIterator<T> {
    return walkPages<T>(this.#rest, this.#operation, this.#params, this.#options);
  }
}

/** Fetches one page of a paginated operation. */
async function fetchPage<T>(
  rest: RestClient,
  operation: OperationId,
  params: Record<string, string>,
  query: PageQuery | undefined,
  options?: CallOptions,
): Promise<Page<T>> {
  const { page, perPage } = await validate(operation, 'pageQuerySchema', query ?? {});
  const raw = await rest.request<unknown>(operation, { ...options, params, query: { page, per_page: perPage } });
  return { items: extractPageItems<T>(raw), page, perPage, raw };
}

/** Walks pages until one is short, empty, or says it is the last. */
async function* walkPages<T>(
  rest: RestClient,
  operation: OperationId,
  params: Record<string, string>,
  options: ListOptions,
): AsyncGenerator<T, void, undefined> {
  const { page: pageOption, perPage: perPageOption, maxPages = Number.POSITIVE_INFINITY, ...callOptions } = options;
  const { page: startPage, perPage } = await validate(operation, 'pageQuerySchema', { page: pageOption, perPage: perPageOption });
  // deadlineMs bounds the whole walk: each page gets what is left of it.
  const endsAt = callOptions.deadlineMs === undefined ? undefined : Date.now() + callOptions.deadlineMs;
  let previous: string | undefined;
  for (let page = startPage, fetched = 0; fetched < maxPages; page++, fetched++) {
    const left = endsAt === undefined ? undefined : endsAt - Date.now();
    if (left !== undefined && left <= 0) {
      throw new TimeoutError({ method: 'GET', path: operation, operation, mayHaveReachedServer: false }, callOptions.deadlineMs as number);
    }
    const result = await fetchPage<T>(rest, operation, params, { page, perPage }, left === undefined ? callOptions : { ...callOptions, deadlineMs: left });
    const print = fingerprint(result.items);
    if (result.items.length > 0 && print === previous) {
      throw new UnexpectedResponseError(
        operation,
        200,
        `page ${page} repeats page ${page - 1}: the service seems to ignore the page parameter, so the walk stops here`,
      );
    }
    previous = print;
    yield* result.items;
    if (isLastPage(result.raw, page, perPage, result.items.length)) return;
  }
}
