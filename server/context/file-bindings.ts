import { z } from "zod";
import type { TContextFileUse } from "@/contracts/context-files";
import {
  describeContextRule,
  type TContextRule,
  type TContextValue,
  ZContextRuleSchema,
  ZContextValueSchema,
} from "@/contracts/definition/context-rule-schema";
import type { TDb, TTx } from "../db";
import { resolveContextValues, type TResolvedContextValue } from "./resolve-context-values";

/** The two keys of a stored definition this room reads (the rest is the definition module's; left alone). */
const ZBindingsSchema = z.object({
  contextValues: z.array(ZContextValueSchema).optional(),
  contextRules: z.array(ZContextRuleSchema).optional(),
});

export type TLockedBindings = { version: number; values: TContextValue[]; rules: TContextRule[] };

/**
 * The bound values and context rules of the person's locked definition in force (its highest locked version); null
 * before the first lock or when it has no context rule. A read only: definitions are written by the tracker store.
 */
export async function lockedBindings(
  db: TDb | TTx,
  input: { userId: string; trackerId: string },
): Promise<TLockedBindings | null> {
  const row = await db.trackerDefinition.findFirst({
    where: { trackerId: input.trackerId, tracker: { userId: input.userId }, lockedAt: { not: null } },
    orderBy: { version: "desc" },
    select: { version: true, definition: true },
  });
  const parsed = ZBindingsSchema.safeParse(row?.definition);
  if (!row || !parsed.success || !parsed.data.contextRules?.length) return null;
  return { version: row.version, values: parsed.data.contextValues ?? [], rules: parsed.data.contextRules };
}

/**
 * Per file, the values the locked rules read from it now and those rules in plain language — what deleting or
 * replacing it touches, said before it goes. Files no rule reads are absent.
 */
export function usesByFile(
  locked: TLockedBindings,
  bound: Record<string, TResolvedContextValue | null>,
): Map<string, TContextFileUse[]> {
  const out = new Map<string, TContextFileUse[]>();
  for (const value of locked.values) {
    const read = bound[value.name];
    const rules = locked.rules.filter((r) => r.value === value.name);
    if (!read || read.kept || rules.length === 0) continue;
    const uses = out.get(read.fileId) ?? [];
    uses.push({ name: value.name, value: read.value, rules: rules.map((r) => describeContextRule(r, locked.values)) });
    out.set(read.fileId, uses);
  }
  return out;
}

/** `usesByFile` for the person's tracker as its files stand now (the file list's view). */
export async function contextFileUses(
  db: TDb | TTx,
  input: { userId: string; trackerId: string },
): Promise<Map<string, TContextFileUse[]>> {
  const locked = await lockedBindings(db, input);
  if (!locked) return new Map();
  return usesByFile(locked, await resolveContextValues(db, { ...input, values: locked.values }));
}
