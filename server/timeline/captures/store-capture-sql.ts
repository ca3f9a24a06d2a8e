import { guardedBy, type TCte } from "../../db-cte";
import { Prisma } from "../../generated/prisma/client";
import type { TEncodedCapture } from "./encode-capture";

/**
 * The capture's insert as a sub-statement of the refresh's one final write (docs/design.md §2: the timeline owns the table,
 * the refresh composes), so a new content hash costs no extra round trip. `guard` names the statement's fencing CTE:
 * a run that lost its lease stores nothing. Content the entity had before is already there (same id): nothing new.
 * The bytes are sent as base64 text and decoded by the database (see loadCapturePayloads: the embedded adapter's
 * bytea handling is slow).
 */
export function storeCaptureSql(capture: TEncodedCapture, guard: string): TCte {
  const sql = Prisma.sql`INSERT INTO "Capture" ("id", "trackerId", "entityId", "hash", "data", "rawBytes", "storedBytes")
    SELECT ${capture.id}, ${capture.trackerId}, ${capture.entityId}, ${capture.hash},
      decode(${capture.data.toString("base64")}, 'base64'),
      ${capture.rawBytes}::int, ${capture.storedBytes}::int
    WHERE ${guardedBy(guard)}
    ON CONFLICT ("id") DO NOTHING`;
  return { name: "capture", sql };
}
