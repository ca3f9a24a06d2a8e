import { z } from "zod";
import { fieldLabel, formatChange, formatFieldValue, type TValueFormat } from "@/contracts/definition/format-value";
import {
  MEMBER_CHANGES_DEFAULT_LIMIT,
  MEMBER_CHANGES_MAX_LIMIT,
  type TMemberChangeEntry,
  type TMemberChangeKind,
  type TMemberChangesResponse,
  type TMemberFieldChange,
} from "@/contracts/set-member";
import { ZChangeDecisionsSchema, ZChangeDeltaSchema, ZChangeMaterialitySchema } from "@/contracts/timeline";
import type { TDb, TTx } from "../../db";
import { AppError } from "../../errors";
import type { MemberChange } from "../../generated/prisma/client";
import { findOwnedMember, type TSetMemberInput } from "./get-set-member";

export type TListMemberChangesInput = TSetMemberInput & { cursor?: string | null | undefined; limit?: number };

/**
 * The delta key the set refresh writes for a member's presence (server/intelligence/refresh/refresh-set.ts):
 * `{from: "gone", to: "listed"}` when it appears or comes back, `{from: "listed", to: "gone"}` when it is gone.
 */
const PRESENCE = "presence";

/**
 * One member's own timeline (its MemberChange rows, docs/sets.md), newest first, a page at a time: owner-checked and
 * set-checked like getSetMember, then one keyset read on the (entityId, capturedAt, id) index — not offset, like the
 * tracker's timeline, so an entry a refresh adds between two pages neither repeats nor hides one.
 */
export async function listMemberChanges(
  db: TDb | TTx,
  input: TListMemberChangesInput,
): Promise<TMemberChangesResponse> {
  const { tracker, definition, entity } = await findOwnedMember(db, input);
  const limit = Math.min(
    Math.max(Math.trunc(input.limit ?? MEMBER_CHANGES_DEFAULT_LIMIT), 1),
    MEMBER_CHANGES_MAX_LIMIT,
  );
  const after = input.cursor ? decodeCursor(input.cursor) : null;
  const rows = await db.memberChange.findMany({
    where: {
      entityId: entity.id,
      ...(after ? { OR: [{ capturedAt: { lt: after.at } }, { capturedAt: after.at, id: { lt: after.id } }] } : {}),
    },
    orderBy: [{ capturedAt: "desc" }, { id: "desc" }],
    take: limit + 1,
  });
  const formats = new Map<string, TValueFormat>(definition.fields.map((f) => [f.name, f]));
  const page = rows.slice(0, limit);
  const last = rows.length > limit ? page.at(-1) : undefined;
  return {
    trackerId: tracker.id,
    key: input.key,
    entries: page.map((row) => toEntry(row, entity.firstSeenAt, formats)),
    nextCursor: last ? encodeCursor(last) : null,
  };
}

/** The stored row's JSON columns, parsed at the boundary (never cast). */
const ZStoredChangeSchema = z.object({
  delta: ZChangeDeltaSchema,
  decisions: ZChangeDecisionsSchema,
  materiality: ZChangeMaterialitySchema,
});

function toEntry(row: MemberChange, firstSeenAt: Date, formats: Map<string, TValueFormat>): TMemberChangeEntry {
  const parsed = ZStoredChangeSchema.safeParse(row);
  if (!parsed.success) {
    throw new AppError("INTERNAL", `Member entry ${row.id} is stored in an unexpected shape.`, { cause: parsed.error });
  }
  const { delta, decisions, materiality } = parsed.data;
  const presence = delta[PRESENCE];
  // A member's row and its first entry are written by the same refresh at the same instant (set-members.ts), so a
  // "listed" entry at its first sighting is its appearance; a later one is its return.
  const kind: TMemberChangeKind =
    presence?.to === "gone"
      ? "gone"
      : presence?.to === "listed"
        ? row.capturedAt.getTime() === firstSeenAt.getTime()
          ? "appeared"
          : "back"
        : "changed";
  const fieldDelta = Object.fromEntries(Object.entries(delta).filter(([name]) => name !== PRESENCE));
  // Definition order, then the rest (notable signals included: a member's new signals are news).
  const names = [...formats.keys(), ...Object.keys(fieldDelta).filter((n) => !formats.has(n))];
  const fields: TMemberFieldChange[] = names
    .filter((name) => name in fieldDelta)
    .map((name) => {
      const d = fieldDelta[name] as { from: TMemberFieldChange["before"]; to: TMemberFieldChange["after"] };
      const decision = decisions[name];
      const format = formats.get(name);
      return {
        field: name,
        label: fieldLabel(name),
        before: d.from,
        after: d.to,
        text:
          kind === "appeared" || kind === "back" ? formatFieldValue(d.to, format) : formatChange(d.from, d.to, format),
        verdict: decision?.verdict ?? null,
        decidedBy: decision?.decidedBy ?? null,
        reason: decision?.reason ?? null,
      };
    })
    // An appearance lists every field; one the source left empty has nothing to say.
    .filter((f) => !(f.before === null && f.after === null));
  return {
    id: row.id,
    at: row.capturedAt,
    kind,
    materiality,
    fields,
    definitionVersion: row.definitionVersion,
    runId: row.runId,
  };
}

const ZCursorSchema = z.object({ t: z.iso.datetime(), i: z.string().min(1).max(100) });

function encodeCursor(row: MemberChange): string {
  return Buffer.from(JSON.stringify({ t: row.capturedAt.toISOString(), i: row.id }), "utf8").toString("base64url");
}

/** Anything encodeCursor did not make is a BAD_REQUEST, never a query. */
function decodeCursor(cursor: string): { at: Date; id: string } {
  try {
    const parsed = ZCursorSchema.parse(JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")));
    return { at: new Date(parsed.t), id: parsed.i };
  } catch {
    throw new AppError("BAD_REQUEST", "That changes cursor is not valid; reload the entries from the newest.");
  }
}
