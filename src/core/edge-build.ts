/**
 * Whether this copy of the SDK is its edge build (`dist/edge/`, reached
 * through the `workerd` and `worker` export conditions). The edge build puts
 * a module saying `true` in place of this one (tsup.config.ts), so the edge
 * build defaults to `fetch` and refuses the Gateway whatever runtime it
 * detects: an edge runtime need not look like Cloudflare's.
 *
 * @module
 */

/** `false` here; `true` in the edge build. */
export const EDGE_BUILD: boolean = false;
