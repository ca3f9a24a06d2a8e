import { keptValuesInUse } from "../../context";
import type { TDb, TTx } from "../../db";
import { getTracker } from "../../intelligence/tracker-store";
import { getCaptureStats, getCurrentState, type TCurrentState } from "../../timeline";
import { anySchedulerAlive } from "../../triggers/scheduler-heartbeat";
import { describeDefinition, diffDefinitionViews, type TDefinitionVersionView } from "../views/definition-view";
import { type TTrackerSummary, toTrackerSummary } from "../views/tracker-summary-view";
import { listDefinitionVersions } from "./list-definition-versions";

export type TTrackerOverview = {
  tracker: TTrackerSummary;
  /** The version in force, described for people (rules in plain language). */
  definition: TDefinitionVersionView | null;
  /** Every version, newest first (drafts included), with what changed from the one before. */
  versions: (TDefinitionVersionView & { changes: string[] })[];
  state: (TCurrentState & { entityKey: string }) | null;
  /** Captures kept for replaying definition edits (docs/replay.md) and their stored (compressed) bytes. */
  storedHistory: { captures: number; bytes: number };
  /** Some scheduler was seen lately (docs/scheduling.md): when not, an overdue tracker's page says why. */
  keepingWatch: boolean;
};

/** Everything the tracker page header shows: the tracker, its definition and versions, the current state. */
export async function getTrackerOverview(
  db: TDb | TTx,
  input: { userId: string; trackerId: string },
): Promise<TTrackerOverview> {
  const tracker = await getTracker(db, input);
  const versions = await listDefinitionVersions(db, input);
  // A rule of the version in force whose file went decides with the value it gave last: the page says so.
  const inForce = versions.find((v) => v.inForce);
  const kept = inForce?.definition.contextRules?.length
    ? await keptValuesInUse(db, {
        ...input,
        version: inForce.version,
        values: inForce.definition.contextValues ?? [],
      })
    : {};
  const views = versions.map((v) => ({
    ...describeDefinition(v.version, v.definition, v === inForce ? kept : {}),
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
  // After getTracker: only the owner's tracker is counted.
  const storedHistory = await getCaptureStats(db, tracker.id);
  const keepingWatch = await anySchedulerAlive(db);
  return {
    tracker: toTrackerSummary(tracker, lastMaterial?.capturedAt ?? null),
    definition: withChanges.find((v) => v.inForce) ?? null,
    versions: withChanges,
    state: state && entity ? { ...state, entityKey: entity.entityKey } : null,
    storedHistory,
    keepingWatch,
  };
}
