import type { Tracker } from "../../generated/prisma/client";
import { isFailing } from "../../intelligence/tracker-store";

/** A tracker as the list, the tracker page header and the public API show it. */
export type TTrackerSummary = {
  id: string;
  decision: string;
  capability: string;
  /** What the capability is bound to (URL or place id), for display. */
  target: string;
  status: Tracker["status"];
  failing: boolean;
  lastError: string | null;
  consecutiveFailures: number;
  scheduleMinutes: number;
  lockedVersion: number | null;
  lastRunAt: Date | null;
  nextRunAt: Date | null;
  lastMaterialAt: Date | null;
  createdAt: Date;
};

export function describeTarget(capabilityInput: unknown): string {
  if (capabilityInput && typeof capabilityInput === "object") {
    const input = capabilityInput as Record<string, unknown>;
    if (typeof input.url === "string") return input.url;
    if (typeof input.placeId === "string") return `place ${input.placeId}`;
  }
  return JSON.stringify(capabilityInput);
}

export function toTrackerSummary(tracker: Tracker, lastMaterialAt: Date | null): TTrackerSummary {
  return {
    id: tracker.id,
    decision: tracker.decision,
    capability: tracker.capability,
    target: describeTarget(tracker.capabilityInput),
    status: tracker.status,
    failing: isFailing(tracker),
    lastError: tracker.lastError,
    consecutiveFailures: tracker.consecutiveFailures,
    scheduleMinutes: tracker.scheduleMinutes,
    lockedVersion: tracker.lockedVersion,
    lastRunAt: tracker.lastRunAt,
    nextRunAt: tracker.status === "active" ? tracker.nextRunAt : null,
    lastMaterialAt,
    createdAt: tracker.createdAt,
  };
}
