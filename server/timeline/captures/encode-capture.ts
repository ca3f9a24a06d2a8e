import { createHash } from "node:crypto";
import { promisify } from "node:util";
import { brotliCompress, brotliDecompress, constants } from "node:zlib";

const compress = promisify(brotliCompress);
const decompress = promisify(brotliDecompress);

/**
 * Quality 4: most of Brotli's gain on HTML at a fraction of the default's (11) CPU — a capture is compressed on every
 * changed refresh, off the unchanged path (measured on the bench page: q4 ~10 % bigger than q5 for ~40 % less CPU).
 */
const BROTLI_QUALITY = 4;

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
 * Serialises, hashes and compresses what a refresh saw (issue 18: stored once, compressed). Plain JSON.stringify,
 * not canonical JSON (3× its CPU on a 100 KB page, on every changed refresh): the hash is only the dedup key, and the
 * same content read by the same code builds its payload in the same key order — a reordering would cost one more row,
 * never a wrong one.
 */
export async function encodeCapture(input: {
  trackerId: string;
  entityId: string;
  payload: unknown;
}): Promise<TEncodedCapture> {
  const text = Buffer.from(JSON.stringify(input.payload), "utf8");
  const hash = createHash("sha256").update(text).digest("hex");
  const data = await compress(text, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: text.length,
    },
  });
  const id = createHash("sha256").update(`${input.entityId}\0${hash}`).digest("hex").slice(0, 32);
  return {
    id: `cap_${id}`,
    trackerId: input.trackerId,
    entityId: input.entityId,
    hash,
    data,
    rawBytes: text.length,
    storedBytes: data.byteLength,
  };
}

/** The payload back (JSON, unparsed: the reader that knows its shape parses it). */
export async function decodeCapture(data: Uint8Array): Promise<unknown> {
  const text = await decompress(data);
  return JSON.parse(text.toString("utf8"));
}
