import { randomUUID } from "node:crypto";

/** A caller-supplied id is kept only when it is short and plain, so it cannot forge log lines. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function pickRequestId(headers: Headers): string {
  const supplied = headers.get("x-request-id")?.trim();
  return supplied && SAFE_REQUEST_ID.test(supplied) ? supplied : randomUUID();
}
