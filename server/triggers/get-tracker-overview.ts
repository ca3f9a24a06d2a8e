import type { TDb, TTx } from "../db";
import { describeRule, effectiveFields, ruleForField, type TTrackerDefinition } from "../intelligence/definition";
import { getTracker, listDefinitionVersions } from "../intelligence/trackers";
import { getCurrentState, type TCurrentState } from "../timeline";
import { type TTrackerSummary, toTrackerSummary } from "./tracker-summary";

export type TDefinitionFieldView = { name: string; type: string; description: string; rule: string };
export type TDefinitionVersionView = {
  version: number;
  lockedAt: Date | null;
  inForce: boolean;
  identityRule: string;
  fields: TDefinitionFieldView[];
};

export type TTrackerOverview = {
  tracker: TTrackerSummary;
  /** The version in force, described for people (rules in plain language). */
  definition: TDefinitionVersionView | null;
  /** Every version, newest first (drafts included), with what changed from the one before. */
  versions: (TDefinitionVersionView & { changes: string[] })[];
  state: (TCurrentState & { entityKey: string }) | null;
};

export function describeDefinition(version: number, definition: TTrackerDefinition) {
  return {
    version,
    identityRule: definition.identityRule.kind,
    fields: effectiveFields(definition).map((field) => ({
      name: field.name,
      type: field.type === "money" && field.currency ? `money (${field.currency})` : field.type,
      description: field.description,
      rule: describeRule(field, ruleForField(definition, field.name)),
    })),
  };
}

/** Readable differences between two versions' fields: added, removed, retyped, rule changed. */
export function diffDefinitionViews(older: TDefinitionFieldView[], newer: TDefinitionFieldView[]): string[] {
  const before = new Map(older.map((f) => [f.name, f]));
  const after = new Map(newer.map((f) => [f.name, f]));
  const out: string[] = [];
  for (const [name, f] of after) {
    const old = before.get(name);
    if (!old) out.push(`added ${name} (${f.type})`);
    else {
      if (old.type !== f.type) out.push(`${name}: type ${old.type} → ${f.type}`);
      if (old.rule !== f.rule) out.push(`rule changed — ${f.rule} (was: ${old.rule})`);
      if (old.description !== f.description) out.push(`${name}: description reworded`);
    }
  }
  for (const name of before.keys()) if (!after.has(name)) out.push(`removed ${name}`);
  return out;
}

/** Everything the tracker page header shows: the tracker, its definition and versions, the current state. */
export async function getTrackerOverview(
  db: TDb | TTx,
  input: { userId: string; trackerId: string },
): Promise<TTrackerOverview> {
  const tracker = await getTracker(db, input);
  const versions = await listDefinitionVersions(db, input);
  const views = versions.map((v) => ({
    ...describeDefinition(v.version, v.definition),
    lockedAt: v.lockedAt,
    inForce: v.inForce,
  }));
  const withChanges = views.map((view, i) => {
    const older = views[i + 1];
    return { ...view, changes: older ? diffDefinitionViews(older.fields, view.fields) : [] };
  });
  const lastMaterial = await db.entityChange.findFirst({
    where: { trackerId: tracker.id, materiality: "material" },
    orderBy: [{ capturedAt: "desc" }, { id: "desc" }],
    select: { capturedAt: true },
  });
  const entity = await db.trackedEntity.findFirst({
    where: { trackerId: tracker.id },
    orderBy: { firstSeenAt: "asc" },
  });
  const state = entity ? await getCurrentState(db, entity.id) : null;
  return {
    tracker: toTrackerSummary(tracker, lastMaterial?.capturedAt ?? null),
    definition: withChanges.find((v) => v.inForce) ?? null,
    versions: withChanges,
    state: state && entity ? { ...state, entityKey: entity.entityKey } : null,
  };
}
