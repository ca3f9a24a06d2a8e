import { randomUUID } from "node:crypto";
import { z } from "zod";
import { ZChangeDecisionsSchema, ZChangeDeltaSchema, ZChangeMaterialitySchema } from "@/contracts/timeline";
import type { TDb } from "../db";
import { guardedBy, type TCte } from "../db-cte";
import { Prisma } from "../generated/prisma/client";

/**
 * A set's members in the timeline (docs/sets.md): one TrackedEntity per member, keyed `item:<its identity>` so the
 * refresh bundle (the tracker's own entities) never carries them, with its state in EntityCurrentState and its own
 * entries in MemberChange (EntityChange holds the tracker's own entries: for a set, the roll-up).
 * Read in one query when a set changed; written as parts of the refresh's one fenced final write, one part per table
 * for all members at once, so a refresh that changed 3 members or 300 is still one statement.
 */

export const MEMBER_KEY_PREFIX = "item:";

const ZMemberRowSchema = z.object({
  id: z.string(),
  entityKey: z.string(),
  goneAt: z.coerce.date().nullable(),
  contentHash: z.string().nullable(),
  fields: z.record(z.string(), z.unknown()).nullable(),
  missingRuns: z.number().int().nullable(),
});

export type TStoredMember = {
  entityId: string;
  /** The member's identity (without the prefix). */
  key: string;
  goneAt: Date | null;
  /** The accepted record; null before its first state. */
  fields: Record<string, unknown> | null;
  contentHash: string | null;
  missingRuns: number;
};

/** Every member of a tracker's set, with its state: one query. */
export async function loadSetMembers(db: TDb, input: { trackerId: string }): Promise<TStoredMember[]> {
  const rows = await db.$queryRaw<unknown[]>`
    SELECT te."id", te."entityKey", te."goneAt", s."contentHash", s."fields", s."missingRuns"
    FROM "TrackedEntity" te LEFT JOIN "EntityCurrentState" s ON s."entityId" = te."id"
    WHERE te."trackerId" = ${input.trackerId} AND te."entityKey" LIKE ${`${MEMBER_KEY_PREFIX}%`}`;
  return rows.map((raw) => {
    const row = ZMemberRowSchema.parse(raw);
    return {
      entityId: row.id,
      key: row.entityKey.slice(MEMBER_KEY_PREFIX.length),
      goneAt: row.goneAt,
      fields: row.fields,
      contentHash: row.contentHash,
      missingRuns: row.missingRuns ?? 0,
    };
  });
}

const ZMemberChangeSchema = z.object({
  entityId: z.string().min(1),
  delta: ZChangeDeltaSchema,
  materiality: ZChangeMaterialitySchema,
  decisions: ZChangeDecisionsSchema,
});

export type TMemberWrites = {
  trackerId: string;
  runId: string;
  definitionVersion: number;
  /** Members seen for the first time: their rows (ids made here, so their states and changes can name them). */
  added: { entityId: string; key: string }[];
  /** New accepted records (appeared, changed, back). */
  states: { entityId: string; fields: Record<string, unknown>; contentHash: string }[];
  /** Members whose missing count moved (missing now, or listed again after a miss). */
  missing: { entityId: string; missingRuns: number }[];
  /** Members that are gone now (`goneAt` set) or back (`goneAt` cleared). */
  presence: { entityId: string; gone: boolean }[];
  /** The members' own timeline rows (MemberChange); the set's roll-up is the set entity's change, with its notice. */
  changes: z.input<typeof ZMemberChangeSchema>[];
};

/** A new id for a member first seen in this run. */
export const newMemberId = () => randomUUID();

const json = (value: unknown) => JSON.stringify(value);

/**
 * The members' part of the final write: at most five sub-statements whatever the number of members, each guarded
 * on the lease fence. Member entries carry no notification outbox row: the set's one roll-up change does.
 */
export function setMemberWritesSql(input: TMemberWrites & { at: Date; guard: string }): TCte[] {
  const parts: TCte[] = [];
  const guard = guardedBy(input.guard);
  if (input.added.length > 0)
    parts.push({
      name: "set_added",
      sql: Prisma.sql`INSERT INTO "TrackedEntity" ("id", "trackerId", "entityKey", "firstSeenAt")
        SELECT m."entityId", ${input.trackerId}, ${MEMBER_KEY_PREFIX} || m."key", ${input.at}
        FROM jsonb_to_recordset(${json(input.added)}::jsonb) AS m("entityId" text, "key" text)
        WHERE ${guard}
        ON CONFLICT ("trackerId", "entityKey") DO NOTHING
        RETURNING "id"`,
    });
  if (input.states.length > 0)
    parts.push({
      name: "set_states",
      sql: Prisma.sql`INSERT INTO "EntityCurrentState"
          ("entityId", "fields", "observed", "contentHash", "definitionVersion", "lastCheckedAt", "updatedAt", "missingRuns")
        SELECT m."entityId", m."fields", m."fields", m."contentHash", ${input.definitionVersion}::int, ${input.at}, ${input.at}, 0
        FROM jsonb_to_recordset(${json(input.states)}::jsonb) AS m("entityId" text, "fields" jsonb, "contentHash" text)
        WHERE ${guard}
        ON CONFLICT ("entityId") DO UPDATE SET "fields" = EXCLUDED."fields", "observed" = EXCLUDED."observed",
          "contentHash" = EXCLUDED."contentHash", "definitionVersion" = EXCLUDED."definitionVersion",
          "lastCheckedAt" = EXCLUDED."lastCheckedAt", "updatedAt" = EXCLUDED."updatedAt", "missingRuns" = 0`,
    });
  if (input.missing.length > 0)
    parts.push({
      name: "set_missing",
      sql: Prisma.sql`UPDATE "EntityCurrentState" s SET "missingRuns" = m."missingRuns", "lastCheckedAt" = ${input.at}
        FROM jsonb_to_recordset(${json(input.missing)}::jsonb) AS m("entityId" text, "missingRuns" int)
        WHERE s."entityId" = m."entityId" AND ${guard}`,
    });
  if (input.presence.length > 0)
    parts.push({
      name: "set_presence",
      sql: Prisma.sql`UPDATE "TrackedEntity" e SET "goneAt" = CASE WHEN m."gone" THEN ${input.at}::timestamp ELSE NULL END
        FROM jsonb_to_recordset(${json(input.presence)}::jsonb) AS m("entityId" text, "gone" boolean)
        WHERE e."id" = m."entityId" AND ${guard}`,
    });
  if (input.changes.length > 0) {
    const rows = input.changes.map((c) => ({ id: randomUUID(), ...ZMemberChangeSchema.parse(c) }));
    parts.push({
      name: "set_changes",
      sql: Prisma.sql`INSERT INTO "MemberChange"
          ("id", "entityId", "trackerId", "runId", "capturedAt", "delta", "materiality", "decisions", "definitionVersion")
        SELECT m."id", m."entityId", ${input.trackerId}, ${input.runId}, ${input.at}, m."delta",
          m."materiality"::"ChangeMateriality", m."decisions", ${input.definitionVersion}::int
        FROM jsonb_to_recordset(${json(rows)}::jsonb)
          AS m("id" text, "entityId" text, "delta" jsonb, "materiality" text, "decisions" jsonb)
        WHERE ${guard}
        ON CONFLICT ("runId", "entityId") DO NOTHING`,
    });
  }
  return parts;
}
