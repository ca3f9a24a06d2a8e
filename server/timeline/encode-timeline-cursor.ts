/**
 * The opaque position of a timeline row: base64url of "<capturedAt ISO>|<id>". Keyset, not offset,
 * so a page boundary stays put when rows are inserted before or after it.
 */
export function encodeTimelineCursor(row: { capturedAt: Date; id: string }): string {
  return Buffer.from(`${row.capturedAt.toISOString()}|${row.id}`, "utf8").toString("base64url");
}
