import { AppError } from "../errors";

const BASE64URL = /^[A-Za-z0-9_-]{1,200}$/;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ROW_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Inverse of encodeTimelineCursor; anything it did not produce is a BAD_REQUEST, never a query. */
export function decodeTimelineCursor(cursor: string): { capturedAt: Date; id: string } {
  const invalid = () =>
    new AppError("BAD_REQUEST", "That timeline cursor is not valid; reload the timeline from the start.");
  if (!BASE64URL.test(cursor)) throw invalid();
  const raw = Buffer.from(cursor, "base64url");
  // Buffer decoding is lenient (it skips junk); only accept the canonical encoding.
  if (raw.toString("base64url") !== cursor) throw invalid();
  const text = raw.toString("utf8");
  const bar = text.indexOf("|");
  if (bar < 0) throw invalid();
  const iso = text.slice(0, bar);
  const id = text.slice(bar + 1);
  if (!ISO_UTC.test(iso) || !ROW_ID.test(id)) throw invalid();
  const capturedAt = new Date(iso);
  if (Number.isNaN(capturedAt.getTime()) || capturedAt.toISOString() !== iso) throw invalid();
  return { capturedAt, id };
}
