import { toHttpError } from "../errors";
import { readBodyText } from "./read-json-body";

/**
 * For routes whose framework reads the body itself (tRPC's fetch adapter has no size option): the body is read
 * here under the JSON limit — a larger one is a 413 before it is read whole (docs/design.md §9) — and handed on as text.
 */
export async function limitRequestBody(req: Request): Promise<Request | Response> {
  if (req.method === "GET" || req.method === "HEAD" || !req.body) return req;
  try {
    const text = await readBodyText(req);
    return new Request(req, { body: text });
  } catch (error) {
    const { status, body } = toHttpError(error);
    return Response.json(body, { status });
  }
}
