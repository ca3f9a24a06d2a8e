import { type TCurrentState, ZCurrentStateFieldsSchema } from "@/contracts/timeline";
import type { TDb, TTx } from "../db";
import { AppError } from "../errors";
import type { Prisma } from "../generated/prisma/client";

/**
 * Replaces the entity's accepted record (material, notable, noise or baseline path): fields (the baseline),
 * what the source said (`observed`, defaults to the fields), hash and definition version, with
 * lastCheckedAt = updatedAt = checkedAt. Creates the row on the first run. Meant to run in the same
 * transaction as appendChange.
 */
export async function writeCurrentState(
  tx: TDb | TTx,
  input: {
    entityId: string;
    fields: Record<string, unknown>;
    observed?: Record<string, unknown>;
    contentHash: string;
    definitionVersion: number;
    checkedAt: Date;
  },
): Promise<TCurrentState> {
  const fields = ZCurrentStateFieldsSchema.safeParse(input.fields);
  if (!fields.success) throw new AppError("BAD_REQUEST", "Current state fields must be a JSON object.");
  const observedInput = ZCurrentStateFieldsSchema.safeParse(input.observed ?? input.fields);
  if (!observedInput.success) throw new AppError("BAD_REQUEST", "Observed fields must be a JSON object.");
  const json = JSON.parse(JSON.stringify(fields.data)) as Prisma.InputJsonObject;
  const observed = JSON.parse(JSON.stringify(observedInput.data)) as Prisma.InputJsonObject;
  const data = {
    fields: json,
    observed,
    contentHash: input.contentHash,
    definitionVersion: input.definitionVersion,
    lastCheckedAt: input.checkedAt,
    updatedAt: input.checkedAt,
  };
  const row = await tx.entityCurrentState.upsert({
    where: { entityId: input.entityId },
    create: { entityId: input.entityId, ...data },
    update: data,
  });
  return {
    entityId: row.entityId,
    fields: json,
    observed,
    contentHash: row.contentHash,
    definitionVersion: row.definitionVersion,
    lastCheckedAt: row.lastCheckedAt,
    updatedAt: row.updatedAt,
  };
}
