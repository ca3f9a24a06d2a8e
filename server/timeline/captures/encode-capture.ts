import { createHash } from "node:crypto";
import { encodeJsonOffThread } from "../../capabilities";
import { decodeJson } from "../../lib/encode-json";

export type TEncodedCapture = {
  /** Derived from (entity, content): the same content of the same entity is one row, however often it returns. */
  id: string;
  trackerId: string;
  entityId: string;
  hash: string;
  data: Buffer;
  rawBytes: number;
  storedBytes: number;
};

/**
 * Serialises, hashes and compresses what a refresh saw (docs/replay.md: stored once, compressed) — in a page worker, so a
 * changed refresh's thread only copies the payload there (lib/encode-json.ts; the same bytes wherever it runs).
 * Plain JSON.stringify, not canonical JSON (3× its CPU on a 100 KB page, on every changed refresh): the hash is only
 * the dedup key, and the same content read by the same code builds its payload in the same key order — a reordering
 * would cost one more row, never a wrong one.
 */
export async function encodeCapture(input: {
  trackerId: string;
  entityId: string;
  payload: unknown;
}): Promise<TEncodedCapture> {
  const { hash, data, rawBytes } = await encodeJsonOffThread(input.payload, "a capture");
  const id = createHash("sha256").update(`${input.entityId}\0${hash}`).digest("hex").slice(0, 32);
  return {
    id: `cap_${id}`,
    trackerId: input.trackerId,
    entityId: input.entityId,
    hash,
    // A Uint8Array when it crossed from a worker: the same bytes, viewed as a Buffer (no copy).
    data: Buffer.from(data.buffer, data.byteOffset, data.byteLength),
    rawBytes,
    storedBytes: data.byteLength,
  };
}

/** The payload back (JSON, unparsed: the reader that knows its shape parses it). */
export const decodeCapture = decodeJson;
