/**
 * Page-based pagination (`page` and `per_page`), shared by api-logs and
 * webhook-deliveries.
 *
 * @module
 */

import { ValidationError } from '../errors.js';
import type { CallOptions } from '../rest/options.js';
import type { RestClient } from '../rest/rest-client.js';
import type { OperationId } from '../routes.js';
import { validate } from '../schemas/validate.js';
import type { PageQuery } from '../schemas/requests.js';
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
  if (count === 0 || count < perPage) return true;
  if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
    const record = raw as Record<string, unknown>;
    if (record['has_more'] === false) return true;
    const total = record['total_pages'];
    if (typeof total === 'number' && page >= total) return true;
  }
  return false;
}

/** Fetches one page of a paginated operation. */
export async function fetchPage<T>(
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

/** Options for walking every page. */
export interface IteratePagesOptions extends CallOptions {
  /** Items per page. @default 50 */
  perPage?: number | undefined;
  /** First page to fetch. @default 1 */
  startPage?: number | undefined;
  /** Stop after this many pages. @default Infinity */
  maxPages?: number | undefined;
}

/** Walks pages until one is short, empty, or says it is the last. */
export async function* iteratePages<T>(
  rest: RestClient,
  operation: OperationId,
  params: Record<string, string>,
  options: IteratePagesOptions | undefined,
): AsyncGenerator<T, void, undefined> {
  const { perPage: perPageOption, startPage = 1, maxPages = Number.POSITIVE_INFINITY, ...callOptions } = options ?? {};
  let perPage: number;
  try {
    ({ perPage } = await validate(operation, 'pageQuerySchema', { page: startPage, perPage: perPageOption }));
  } catch (error) {
    // The caller wrote startPage, not page: name it so.
    if (error instanceof ValidationError) throw new ValidationError(operation, error.issues.map((issue) => (issue.path === 'page' ? { ...issue, path: 'startPage' } : issue)));
    throw error;
  }
  for (let page = startPage, fetched = 0; fetched < maxPages; page++, fetched++) {
    const result = await fetchPage<T>(rest, operation, params, { page, perPage }, callOptions);
    yield* result.items;
    if (isLastPage(result.raw, page, perPage, result.items.length)) return;
  }
}
