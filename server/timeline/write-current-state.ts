import { type TCurrentState, ZCurrentStateFieldsSchema } from "@/contracts/timeline";
import type { TDb, TTx } from "../db";
import { guardedBy, type TCte } from "../db-cte";
import { AppError } from "../errors";
import { Prisma } from "../generated/prisma/client";

type TStateInput = {
  entityId: string;
  fields: Record<string, unknown>;
  observed?: Record<string, unknown>;
  contentHash: string;
  definitionVersion: number;
  checkedAt: Date;
};

/** Both records as JSON objects (anything else is a caller's bug: BAD_REQUEST). */
function stateJson(input: TStateInput): { fields: Prisma.InputJsonObject; observed: Prisma.InputJsonObject } {
  const fields = ZCurrentStateFieldsSchema.safeParse(input.fields);
  if (!fields.success) throw new AppError("BAD_REQUEST", "Current state fields must be a JSON object.");
  const observedInput = ZCurrentStateFieldsSchema.safeParse(input.observed ?? input.fields);
  if (!observedInput.success) throw new AppError("BAD_REQUEST", "Observed fields must be a JSON object.");
  return {
    fields: JSON.parse(JSON.stringify(fields.data)) as Prisma.InputJsonObject,
    observed: JSON.parse(JSON.stringify(observedInput.data)) as Prisma.InputJsonObject,
  };
}

/**
 * Replaces the entity's accepted record (material, notable, noise or baseline path): fields (the baseline),
 * what the source said (`observed`, defaults to the fields), hash and definition version, with
 * lastCheckedAt = updatedAt = checkedAt. Creates the row on the first run. The refresh writes it as part of its one
 * final statement (writeCurrentStateSql); this runs the same upsert on its own.
 */
export async function writeCurrentState(tx: TDb | TTx, input: TStateInput): Promise<TCurrentState> {
  await tx.$executeRaw(writeCurrentStateSql({ ...input, guard: null }).sql);
  const { fields, observed } = stateJson(input);
  return {
    entityId: input.entityId,
    fields,
    observed,
    contentHash: input.contentHash,
    definitionVersion: input.definitionVersion,
    lastCheckedAt: input.checkedAt,
    updatedAt: input.checkedAt,
  };
}

/**
 * writeCurrentState as a sub-statement of the refresh's one final write (docs/design.md §2: the timeline owns this table,
 * the refresh composes it with the run and the change row): an upsert that writes only when the statement's fencing
 * CTE `guard` returned a row (null: unguarded, as writeCurrentState runs it).
 */
export function writeCurrentStateSql(input: TStateInput & { guard: string | null }): TCte {
  const { fields, observed } = stateJson(input);
  return {
    name: "state",
    sql: Prisma.sql`INSERT INTO "EntityCurrentState"
      ("entityId", "fields", "observed", "contentHash", "definitionVersion", "lastCheckedAt", "updatedAt")
    SELECT ${input.entityId}, ${JSON.stringify(fields)}::jsonb, ${JSON.stringify(observed)}::jsonb, ${input.contentHash},
      ${input.definitionVersion}::int, ${input.checkedAt}, ${input.checkedAt}
    WHERE ${guardedBy(input.guard)}
    ON CONFLICT ("entityId") DO UPDATE SET "fields" = EXCLUDED."fields", "observed" = EXCLUDED."observed",
      "contentHash" = EXCLUDED."contentHash", "definitionVersion" = EXCLUDED."definitionVersion",
      "lastCheckedAt" = EXCLUDED."lastCheckedAt", "updatedAt" = EXCLUDED."updatedAt"`,
  };
}
