import { AppError } from "@/server/errors";

/** The largest JSON body any route reads (definitions and chat turns are a few KB). */
export const MAX_JSON_BODY_BYTES = 1_000_000;

/**
 * Reads a JSON request body without ever holding more than `maxBytes`: a larger body (declared or streamed) is a
 * 413 before it is read whole; malformed JSON is a 400. An empty body reads as `undefined`.
 */
export async function readJsonBody(request: Request, maxBytes = MAX_JSON_BODY_BYTES): Promise<unknown> {
  const tooLarge = () =>
    new AppError("PAYLOAD_TOO_LARGE", `The request body is larger than ${Math.round(maxBytes / 1000)} KB.`, {
      details: { maxBytes },
    });
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw tooLarge();
  if (!request.body) return undefined;
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
  const text = new TextDecoder().decode(Buffer.concat(chunks));
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError("BAD_REQUEST", "The request body is not valid JSON.");
  }
}
