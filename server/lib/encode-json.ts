import { createHash } from "node:crypto";
import { promisify } from "node:util";
import { brotliCompress, brotliCompressSync, brotliDecompress, constants } from "node:zlib";

const compress = promisify(brotliCompress);
const decompress = promisify(brotliDecompress);

/**
 * Quality 4: most of Brotli's gain on HTML at a fraction of the default's (11) CPU — a capture is compressed on every
 * changed refresh, off the unchanged path (measured on the bench page: q4 ~10 % bigger than q5 for ~40 % less CPU).
 */
const BROTLI_QUALITY = 4;

/** A JSON value serialised, hashed (sha256 hex of the JSON text) and Brotli-compressed. */
export type TEncodedJson = { hash: string; data: Uint8Array; rawBytes: number };

const paramsFor = (text: Buffer) => ({
  params: {
    [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
    [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
    [constants.BROTLI_PARAM_SIZE_HINT]: text.length,
  },
});

function serialise(value: unknown): { text: Buffer; hash: string } {
  const text = Buffer.from(JSON.stringify(value), "utf8");
  return { text, hash: createHash("sha256").update(text).digest("hex") };
}

/** In the calling thread, all of it: for a worker thread (server/capabilities/web-scrape/page-tasks.ts). */
export function encodeJsonSync(value: unknown): TEncodedJson {
  const { text, hash } = serialise(value);
  const data = brotliCompressSync(text, paramsFor(text));
  // An exact copy: the result may view a larger zlib chunk, and posting a view to another thread copies all of it.
  return { hash, data: new Uint8Array(data), rawBytes: text.length };
}

/** The same bytes, compressed in libuv's thread pool (serialising and hashing stay on the calling thread). */
export async function encodeJson(value: unknown): Promise<TEncodedJson> {
  const { text, hash } = serialise(value);
  const data = await compress(text, paramsFor(text));
  return { hash, data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), rawBytes: text.length };
}

/** The value back (unparsed beyond JSON: the reader that knows its shape parses it). */
export async function decodeJson(data: Uint8Array): Promise<unknown> {
  const text = await decompress(data);
  return JSON.parse(text.toString("utf8"));
}
