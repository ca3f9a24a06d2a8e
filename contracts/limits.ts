/** Request limits both sides must agree on (the browser's tRPC batch link and the server). */

/** A tRPC batch is that many procedure calls: capped on the server and in the client's batch link. */
export const TRPC_MAX_BATCH_SIZE = 16;

/** The largest JSON body any route reads (definitions and chat turns are a few KB). */
export const MAX_JSON_BODY_BYTES = 1_000_000;
