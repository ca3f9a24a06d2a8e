import { MAX_JSON_BODY_BYTES } from "@/contracts/limits";
import { AppError } from "@/server/errors";

/**
 * Reads a JSON request body without ever holding more than `maxBytes`: a larger body (declared or streamed) is a
 * 413 before it is read whole; malformed JSON is a 400. An empty body reads as `undefined`.
 */
export async function readJsonBody(request: Request, maxBytes = MAX_JSON_BODY_BYTES): Promise<unknown> {
  const text = await readBodyText(request, maxBytes);
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError("BAD_REQUEST", "The request body is not valid JSON.");
  }
}

/** The body as text, never holding more than `maxBytes` (declared or streamed): a larger one is a 413. */
export async function readBodyText(request: Request, maxBytes = MAX_JSON_BODY_BYTES): Promise<string> {
  return new TextDecoder().decode(await readBodyBytes(request, maxBytes));
}

/** The body's bytes, never holding more than `maxBytes` (declared or streamed): a larger one is a 413. */
export async function readBodyBytes(request: Request, maxBytes = MAX_JSON_BODY_BYTES): Promise<Uint8Array> {
  const tooLarge = () =>
    new AppError("PAYLOAD_TOO_LARGE", `The request body is larger than ${Math.round(maxBytes / 1000)} KB.`, {
      details: { maxBytes },
    });
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw tooLarge();
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
