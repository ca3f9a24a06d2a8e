import type { TTrackerSummary } from "@/contracts/trackers";
import { getCapability } from "../../capabilities";
import type { Tracker } from "../../generated/prisma/client";
import { isDue, isFailing, isOverdue, needsAttention, parseFieldHealth } from "../../intelligence/tracker-store";

/** A tracker as the list, the tracker page header and the public API show it (contracts/trackers.ts). */
export type { TTrackerSummary } from "@/contracts/trackers";

/** The target in a few words, as its capability's descriptor says it ("https://…", "Google Maps place ChIJ…"). */
export function describeTarget(capability: string, capabilityInput: unknown): string {
  const described = getCapability(capability)?.describeTarget(capabilityInput ?? {});
  return typeof described === "string" && described ? described : JSON.stringify(capabilityInput);
}

export function toTrackerSummary(tracker: Tracker, lastMaterialAt: Date | null, now = new Date()): TTrackerSummary {
  return {
    id: tracker.id,
    decision: tracker.decision,
    capability: tracker.capability,
    target: describeTarget(tracker.capability, tracker.capabilityInput),
    status: tracker.status,
    failing: isFailing(tracker),
    lastError: tracker.lastError,
    consecutiveFailures: tracker.consecutiveFailures,
    needsAttention: needsAttention(tracker),
    attentionReason: tracker.status === "active" ? tracker.attentionReason : null,
    fields: fieldsReadOf(tracker),
    scheduleMinutes: tracker.scheduleMinutes,
    lockedVersion: tracker.lockedVersion,
    lastRunAt: tracker.lastRunAt,
    nextRunAt: tracker.status === "active" ? tracker.nextRunAt : null,
    due: isDue(tracker, now),
    overdue: isOverdue(tracker, now),
    lastMaterialAt,
    createdAt: tracker.createdAt,
  };
}

/** "reads N of M fields" as of the last run that filled the record (docs/field-health.md); null before one. */
function fieldsReadOf(tracker: Pick<Tracker, "fieldHealth">): TTrackerSummary["fields"] {
  const health = parseFieldHealth(tracker.fieldHealth);
  return health ? { read: health.read, total: health.total, missing: Object.keys(health.misses) } : null;
}
