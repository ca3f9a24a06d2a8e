import { tracked } from "@trpc/server";
import { z } from "zod";
import { ZRejudgedHistorySchema } from "@/contracts/rejudged";
import {
  ZRejudgeHistoryRequestSchema,
  ZRejudgeHistoryResponseSchema,
  ZReplayCheckedRequestSchema,
  ZReplayPlanSchema,
  ZReplayResponseSchema,
} from "@/contracts/replay";
import {
  ZMemberChangesRequestSchema,
  ZMemberChangesResponseSchema,
  ZSetMemberRequestSchema,
  ZSetMemberResponseSchema,
} from "@/contracts/set-member";
import { ZSetMembersRequestSchema, ZSetMembersResponseSchema } from "@/contracts/set-members";
import {
  ZDiscardDraftRequestSchema,
  ZDiscardDraftResponseSchema,
  ZGetTrackerRequestSchema,
  ZListRunsRequestSchema,
  ZListTrackersRequestSchema,
  ZNumericSeriesRequestSchema,
  ZNumericSeriesResponseSchema,
  ZPrunedRunDaySchema,
  ZPrunedRunDaysRequestSchema,
  ZRefreshResultSchema,
  ZRefreshRunViewSchema,
  ZRefreshTrackerRequestSchema,
  ZSetScheduleRequestSchema,
  ZSetStatusManyRequestSchema,
  ZSetStatusManyResponseSchema,
  ZSetStatusRequestSchema,
  ZTimelineRequestSchema,
  ZTimelineResponseSchema,
  ZTrackerEventsRequestSchema,
  ZTrackerIdRequestSchema,
  ZTrackerOverviewSchema,
  ZTrackerSummarySchema,
  ZTrackersListRequestSchema,
  ZTrackersListResponseSchema,
} from "@/contracts/trackers";
import {
  discardDraft,
  discardUnfinishedSetup,
  getNumericSeries,
  getRejudgedHistory,
  getTrackerOverview,
  getTrackersList,
  getTrackerTimeline,
  listPrunedRunDays,
  listRefreshRuns,
  listSetMembers,
  listTrackerSummaries,
  listUnfinishedSetups,
  rejudgeHistory,
  replayTrackerWithinLimit,
  setTrackerSchedule,
  setTrackerStatus,
  setTrackersStatus,
  trackerEvents,
  ZUnfinishedSetupsViewSchema,
} from "../../trackers";
// Not re-exported by server/trackers/index.ts yet (another change owns that file): the module itself.
import { getSetMember } from "../../trackers/queries/get-set-member";
import { listMemberChanges } from "../../trackers/queries/list-member-changes";
import { refreshTrackerNow, streamTrackerRefresh } from "../../triggers";
import { timelineWindow } from "../timeline-window";
import { createTRPCRouter, protectedProcedure } from "../trpc";

/** Inputs and outputs are the shared contracts (contracts/trackers.ts) the public REST API validates with too. */
export const trackerRouter = createTRPCRouter({
  /** The first `limit` trackers (default 100, at most 500) after `cursor`; GET /api/v1/trackers also says nextCursor. */
  list: protectedProcedure
    .input(ZListTrackersRequestSchema.optional())
    .output(z.array(ZTrackerSummarySchema))
    .query(({ ctx, input }) => listTrackerSummaries(ctx.db, { userId: ctx.user.id, ...input })),

  /** Unfinished setups (new drafts, edits of live trackers, conversations without an address): /trackers and /trackers/new. */
  unfinishedSetups: protectedProcedure
    .output(ZUnfinishedSetupsViewSchema)
    .query(({ ctx }) => listUnfinishedSetups(ctx.db, { userId: ctx.user.id })),

  /** Discard one of them: deleted (a new setup, its draft tracker with it) or, for an edit, closed. */
  discardSetup: protectedProcedure
    .input(z.object({ sessionId: z.string().min(1).max(100) }))
    .mutation(({ ctx, input }) => discardUnfinishedSetup(ctx.db, { userId: ctx.user.id, sessionId: input.sessionId })),

  /** The trackers page, a page at a time: filtered and searched on the server, with counts; drafts apart. */
  listView: protectedProcedure
    .input(ZTrackersListRequestSchema.optional())
    .output(ZTrackersListResponseSchema)
    .query(({ ctx, input }) => getTrackersList(ctx.db, { userId: ctx.user.id, ...input })),

  get: protectedProcedure
    .input(ZGetTrackerRequestSchema)
    .output(ZTrackerOverviewSchema)
    .query(({ ctx, input }) => getTrackerOverview(ctx.db, { userId: ctx.user.id, trackerId: input.trackerId })),

  timeline: protectedProcedure
    .input(ZTimelineRequestSchema)
    .output(ZTimelineResponseSchema)
    .query(({ ctx, input }) => getTrackerTimeline(ctx.db, { userId: ctx.user.id, ...timelineWindow(input) })),

  /** What a later locked version would have recorded over the stored history, when the person asked (docs/replay.md). */
  rejudged: protectedProcedure
    .input(ZTrackerIdRequestSchema)
    .output(ZRejudgedHistorySchema)
    .query(({ ctx, input }) => getRejudgedHistory(ctx.db, { userId: ctx.user.id, trackerId: input.trackerId })),

  series: protectedProcedure
    .input(ZNumericSeriesRequestSchema)
    .output(ZNumericSeriesResponseSchema)
    .query(({ ctx, input }) => getNumericSeries(ctx.db, { userId: ctx.user.id, trackerId: input.trackerId })),

  runs: protectedProcedure
    .input(ZListRunsRequestSchema)
    .output(z.array(ZRefreshRunViewSchema))
    .query(({ ctx, input }) =>
      listRefreshRuns(ctx.db, { userId: ctx.user.id, trackerId: input.trackerId, limit: input.limit }),
    ),

  prunedRunDays: protectedProcedure
    .input(ZPrunedRunDaysRequestSchema)
    .output(z.array(ZPrunedRunDaySchema))
    .query(({ ctx, input }) =>
      listPrunedRunDays(ctx.db, { userId: ctx.user.id, trackerId: input.trackerId, limit: input.limit }),
    ),

  /** The members of a set tracker (docs/sets.md), a page at a time; not a set → `watchesSet: false`, no members. */
  setMembers: protectedProcedure
    .input(ZSetMembersRequestSchema)
    .output(ZSetMembersResponseSchema)
    .query(({ ctx, input }) => listSetMembers(ctx.db, { userId: ctx.user.id, ...input })),

  /** One member of a set tracker: its status, fields and address (docs/sets.md); not a set → NOT_FOUND saying so. */
  setMember: protectedProcedure
    .input(ZSetMemberRequestSchema)
    .output(ZSetMemberResponseSchema)
    .query(({ ctx, input }) => getSetMember(ctx.db, { userId: ctx.user.id, ...input })),

  /** That member's own entries (MemberChange), newest first, a page at a time. */
  memberChanges: protectedProcedure
    .input(ZMemberChangesRequestSchema)
    .output(ZMemberChangesResponseSchema)
    .query(({ ctx, input }) => listMemberChanges(ctx.db, { userId: ctx.user.id, ...input })),

  refresh: protectedProcedure
    .input(ZTrackerIdRequestSchema)
    .output(ZRefreshResultSchema)
    .mutation(({ ctx, input }) =>
      refreshTrackerNow(ctx.db, {
        userId: ctx.user.id,
        trackerId: input.trackerId,
        trigger: "manual",
        defer: ctx.defer,
      }),
    ),

  /**
   * Refresh now with live progress over SSE: step events, then the result. The client sends a fresh
   * idempotency key per click, so a reconnect replays that run instead of starting another.
   */
  refreshProgress: protectedProcedure
    .input(ZRefreshTrackerRequestSchema.required({ idempotencyKey: true }))
    .subscription(async function* ({ ctx, input, signal }) {
      yield* streamTrackerRefresh(
        ctx.db,
        { userId: ctx.user.id, trackerId: input.trackerId, idempotencyKey: input.idempotencyKey },
        {},
        signal,
      );
    }),

  /**
   * One tracker's live events over SSE (a run ended; a change was recorded; its status moved), for its open page
   * to reload in place. Owner-checked: another person's tracker is NOT_FOUND. Resumable by event id.
   */
  events: protectedProcedure.input(ZTrackerEventsRequestSchema).subscription(async function* ({ ctx, input, signal }) {
    const events = trackerEvents(ctx.db, {
      userId: ctx.user.id,
      trackerId: input.trackerId,
      lastEventId: input.lastEventId ?? null,
      ...(signal ? { signal } : {}),
    });
    for await (const { id, ...event } of events) yield tracked(id, event);
  }),

  setStatus: protectedProcedure
    .input(ZSetStatusRequestSchema)
    .mutation(({ ctx, input }) =>
      setTrackerStatus(ctx.db, { userId: ctx.user.id, trackerId: input.trackerId, status: input.status }),
    ),

  setStatusMany: protectedProcedure
    .input(ZSetStatusManyRequestSchema)
    .output(ZSetStatusManyResponseSchema)
    .mutation(({ ctx, input }) =>
      setTrackersStatus(ctx.db, { userId: ctx.user.id, trackerIds: input.trackerIds, status: input.status }),
    ),

  /** Deletes the person's draft tracker and its setup conversation (a locked tracker is archived instead). */
  discardDraft: protectedProcedure
    .input(ZDiscardDraftRequestSchema)
    .output(ZDiscardDraftResponseSchema)
    .mutation(({ ctx, input }) => discardDraft(ctx.db, { userId: ctx.user.id, trackerId: input.trackerId })),

  /** Replay (docs/replay.md), counts only: how many stored captures and model calls a replay of the period would need. */
  replayPlan: protectedProcedure
    .input(ZReplayCheckedRequestSchema)
    .output(ZReplayPlanSchema)
    .query(
      async ({ ctx, input }) =>
        (await replayTrackerWithinLimit(ctx.db, { ...input, planOnly: true, userId: ctx.user.id })).plan,
    ),

  /**
   * What the draft (or locked) definition would have recorded over the stored captures, beside what was recorded.
   * Writes nothing to the timeline; a mutation because it is a costly, rate-limited call (the page streams it with
   * progress through POST /api/trackers/[trackerId]/replay instead).
   */
  replay: protectedProcedure
    .input(ZReplayCheckedRequestSchema)
    .output(ZReplayResponseSchema)
    .mutation(({ ctx, input }) => replayTrackerWithinLimit(ctx.db, { ...input, userId: ctx.user.id })),

  /** "Lock with history": re-judge the stored captures under the version in force, beside the originals. */
  rejudgeHistory: protectedProcedure
    .input(ZRejudgeHistoryRequestSchema)
    .output(ZRejudgeHistoryResponseSchema)
    .mutation(({ ctx, input }) =>
      rejudgeHistory(ctx.db, {
        userId: ctx.user.id,
        trackerId: input.trackerId,
        ...(input.from ? { from: input.from } : {}),
        ...(input.to ? { to: input.to } : {}),
      }),
    ),

  setSchedule: protectedProcedure.input(ZSetScheduleRequestSchema).mutation(({ ctx, input }) =>
    setTrackerSchedule(ctx.db, {
      userId: ctx.user.id,
      trackerId: input.trackerId,
      scheduleMinutes: input.scheduleMinutes,
    }),
  ),
});
