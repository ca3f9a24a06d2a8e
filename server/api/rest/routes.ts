import {
  ZTrackerRoutingInputSchema,
  ZTrackerRoutingRequestSchema,
  ZTrackerRoutingResponseSchema,
} from "@/contracts/notifications";
import { ZReplayCheckedRequestSchema, ZReplayResponseSchema } from "@/contracts/replay";
import {
  ZMemberChangesRequestSchema,
  ZMemberChangesResponseSchema,
  ZSetMemberRequestSchema,
  ZSetMemberResponseSchema,
} from "@/contracts/set-member";
import { ZSetMembersRequestSchema, ZSetMembersResponseSchema } from "@/contracts/set-members";
import {
  ZCreateTrackerRequestSchema,
  ZCreateTrackerResponseSchema,
  ZGetTrackerRequestSchema,
  ZGetTrackerResponseSchema,
  ZListRunsRequestSchema,
  ZListRunsResponseSchema,
  ZListTrackersRequestSchema,
  ZListTrackersResponseSchema,
  ZListVersionsRequestSchema,
  ZListVersionsResponseSchema,
  ZRefreshTrackerRequestSchema,
  ZRefreshTrackerResponseSchema,
  ZSetScheduleRequestSchema,
  ZSetStatusRequestSchema,
  ZTimelineRequestSchema,
  ZTimelineResponseSchema,
  ZTrackerResponseSchema,
  ZTrackerStateRequestSchema,
  ZTrackerStateResponseSchema,
} from "@/contracts/trackers";
import { getTrackerRouting, updateTrackerRouting } from "../../notifications";
import {
  createActiveTracker,
  getRunsLog,
  getTrackerOverview,
  getTrackerTimeline,
  listSetMembers,
  pageTrackerSummaries,
  replayTrackerWithinLimit,
  setTrackerSchedule,
  setTrackerStatus,
} from "../../trackers";
// Not re-exported by server/trackers/index.ts yet (another change owns that file): the modules themselves.
import { getSetMember } from "../../trackers/queries/get-set-member";
import { listMemberChanges } from "../../trackers/queries/list-member-changes";
import { refreshTrackerNow } from "../../triggers";
import { timelineWindow } from "../timeline-window";
import { defineRoute, type TRestRoute } from "./define-route";

/** The public API under /api/v1: every route, its contract and its one domain call. */
export const REST_ROUTES: TRestRoute[] = [
  defineRoute({
    method: "GET",
    path: "/trackers",
    operationId: "listTrackers",
    summary: "Your trackers, newest first; page with limit and nextCursor",
    request: ZListTrackersRequestSchema,
    response: ZListTrackersResponseSchema,
    status: 200,
    handler: ({ db, userId }, input) => pageTrackerSummaries(db, { userId, ...input }),
  }),
  defineRoute({
    method: "POST",
    path: "/trackers",
    operationId: "createTracker",
    summary: "Create an active tracker, locked at definition version 1 and due at once",
    request: ZCreateTrackerRequestSchema,
    response: ZCreateTrackerResponseSchema,
    status: 201,
    handler: async ({ db, userId, refreshSeams }, input) => {
      const tracker = await createActiveTracker(
        db,
        { userId, ...input },
        refreshSeams?.capabilityConfig ? { capabilityConfig: refreshSeams.capabilityConfig } : {},
      );
      const overview = await getTrackerOverview(db, { userId, trackerId: tracker.id });
      return { tracker: overview.tracker, definition: overview.definition };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/trackers/{trackerId}",
    operationId: "getTracker",
    summary: "A tracker with the definition in force and every version",
    request: ZGetTrackerRequestSchema,
    response: ZGetTrackerResponseSchema,
    status: 200,
    handler: async ({ db, userId }, input) => {
      const { tracker, definition, versions } = await getTrackerOverview(db, { userId, trackerId: input.trackerId });
      return { tracker, definition, versions };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/trackers/{trackerId}/state",
    operationId: "getTrackerState",
    summary: "What the source says now (the current state of the tracked entity)",
    request: ZTrackerStateRequestSchema,
    response: ZTrackerStateResponseSchema,
    status: 200,
    handler: async ({ db, userId }, input) => {
      const overview = await getTrackerOverview(db, { userId, trackerId: input.trackerId });
      return { trackerId: overview.tracker.id, state: overview.state };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/trackers/{trackerId}/timeline",
    operationId: "getTimeline",
    summary: "The timeline of changes, newest first; page with nextCursor",
    request: ZTimelineRequestSchema,
    response: ZTimelineResponseSchema,
    status: 200,
    handler: ({ db, userId }, input) => getTrackerTimeline(db, { userId, ...timelineWindow(input) }),
  }),
  // A set's members (docs/sets.md). The key is one path segment, percent-encoded (keys are often URLs); the adapter
  // decodes it once (handle-rest-request.ts). Not a set: the list says watchesSet false, a member is a 404 saying so.
  defineRoute({
    method: "GET",
    path: "/trackers/{trackerId}/members",
    operationId: "listSetMembers",
    summary:
      "The members of a tracker that watches a set, searched, sorted and filtered by status; page with nextCursor. " +
      "Not a set: watchesSet false and no members",
    request: ZSetMembersRequestSchema,
    response: ZSetMembersResponseSchema,
    status: 200,
    handler: ({ db, userId }, input) => listSetMembers(db, { userId, ...input }),
  }),
  defineRoute({
    method: "GET",
    path: "/trackers/{trackerId}/members/{key}",
    operationId: "getSetMember",
    summary: "One member of a set by its key (percent-encoded in the path): status, fields, address",
    request: ZSetMemberRequestSchema,
    response: ZSetMemberResponseSchema,
    status: 200,
    handler: ({ db, userId }, input) => getSetMember(db, { userId, ...input }),
  }),
  defineRoute({
    method: "GET",
    path: "/trackers/{trackerId}/members/{key}/changes",
    operationId: "listMemberChanges",
    summary: "One member's own timeline (appeared, changed, gone, back), newest first; page with nextCursor",
    request: ZMemberChangesRequestSchema,
    response: ZMemberChangesResponseSchema,
    status: 200,
    handler: ({ db, userId }, input) => listMemberChanges(db, { userId, ...input }),
  }),
  defineRoute({
    method: "GET",
    path: "/trackers/{trackerId}/runs",
    operationId: "listRuns",
    summary: "The refresh runs of a tracker, newest first, and older unchanged checks summed per day",
    request: ZListRunsRequestSchema,
    response: ZListRunsResponseSchema,
    status: 200,
    handler: ({ db, userId }, input) => getRunsLog(db, { userId, trackerId: input.trackerId, limit: input.limit }),
  }),
  defineRoute({
    method: "GET",
    path: "/trackers/{trackerId}/versions",
    operationId: "listDefinitionVersions",
    summary: "Every definition version, newest first, with what changed from the one before",
    request: ZListVersionsRequestSchema,
    response: ZListVersionsResponseSchema,
    status: 200,
    handler: async ({ db, userId }, input) => ({
      versions: (await getTrackerOverview(db, { userId, trackerId: input.trackerId })).versions,
    }),
  }),
  defineRoute({
    method: "POST",
    path: "/trackers/{trackerId}/refresh",
    operationId: "refreshTracker",
    summary: "Refresh now; the same Idempotency-Key again returns the first run (200) instead of refreshing",
    request: ZRefreshTrackerRequestSchema,
    headers: { idempotencyKey: "idempotency-key" },
    response: ZRefreshTrackerResponseSchema,
    status: (res) => (res.run.replayed ? 200 : 201),
    handler: async ({ db, userId, refreshSeams }, input) => ({
      run: await refreshTrackerNow(
        db,
        {
          userId,
          trackerId: input.trackerId,
          trigger: "api",
          ...(input.idempotencyKey ? { idempotencyKey: input.idempotencyKey } : {}),
        },
        refreshSeams,
      ),
    }),
  }),
  defineRoute({
    method: "POST",
    path: "/trackers/{trackerId}/replay",
    operationId: "replayTracker",
    summary:
      "What the draft (or locked) definition would have recorded over the stored history, beside what was " +
      "recorded; writes nothing. planOnly: counts only",
    request: ZReplayCheckedRequestSchema,
    response: ZReplayResponseSchema,
    status: 200,
    handler: ({ db, userId }, input) => replayTrackerWithinLimit(db, { ...input, userId }),
  }),
  defineRoute({
    method: "PUT",
    path: "/trackers/{trackerId}/schedule",
    operationId: "setSchedule",
    summary: "Set how often the tracker refreshes",
    request: ZSetScheduleRequestSchema,
    response: ZTrackerResponseSchema,
    status: 200,
    handler: async ({ db, userId }, input) => {
      await setTrackerSchedule(db, { userId, trackerId: input.trackerId, scheduleMinutes: input.scheduleMinutes });
      return { tracker: (await getTrackerOverview(db, { userId, trackerId: input.trackerId })).tracker };
    },
  }),
  defineRoute({
    method: "PUT",
    path: "/trackers/{trackerId}/status",
    operationId: "setStatus",
    summary: "Pause, resume (active) or archive a tracker",
    request: ZSetStatusRequestSchema,
    response: ZTrackerResponseSchema,
    status: 200,
    handler: async ({ db, userId }, input) => {
      await setTrackerStatus(db, { userId, trackerId: input.trackerId, status: input.status });
      return { tracker: (await getTrackerOverview(db, { userId, trackerId: input.trackerId })).tracker };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/trackers/{trackerId}/notifications",
    operationId: "getNotificationRouting",
    summary: "When this tracker's changes notify you: its own routing (null = your default) and what applies",
    request: ZTrackerRoutingRequestSchema,
    response: ZTrackerRoutingResponseSchema,
    status: 200,
    handler: ({ db, userId }, input) => getTrackerRouting(db, { userId, trackerId: input.trackerId }),
  }),
  defineRoute({
    method: "PUT",
    path: "/trackers/{trackerId}/notifications",
    operationId: "setNotificationRouting",
    summary: "Route material and notable changes (immediate, digest, off; null = your default) and failing notices",
    request: ZTrackerRoutingInputSchema,
    response: ZTrackerRoutingResponseSchema,
    status: 200,
    handler: ({ db, userId }, input) => updateTrackerRouting(db, { userId, routing: input }),
  }),
];
