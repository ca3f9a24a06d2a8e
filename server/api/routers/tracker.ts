import { z } from "zod";
import {
  getNumericSeries,
  getTrackerOverview,
  getTrackerTimeline,
  listRefreshRuns,
  listTrackerSummaries,
  setTrackerSchedule,
  setTrackerStatus,
  setTrackersStatus,
  zTimelineDate,
} from "@/server/trackers";
import { refreshTrackerNow, streamTrackerRefresh } from "@/server/triggers";
import { createTRPCRouter, protectedProcedure } from "../trpc";

const ZTrackerIdSchema = z.object({ trackerId: z.string().min(1) });

export const trackerRouter = createTRPCRouter({
  list: protectedProcedure
    .input(z.object({ status: z.enum(["active", "paused", "archived", "draft", "failing"]).optional() }).optional())
    .query(({ ctx, input }) =>
      listTrackerSummaries(ctx.db, { userId: ctx.user.id, ...(input?.status ? { status: input.status } : {}) }),
    ),

  get: protectedProcedure
    .input(ZTrackerIdSchema)
    .query(({ ctx, input }) => getTrackerOverview(ctx.db, { userId: ctx.user.id, trackerId: input.trackerId })),

  timeline: protectedProcedure
    .input(
      ZTrackerIdSchema.extend({
        cursor: z.string().nullish(),
        limit: z.number().int().min(1).max(100).default(20),
        /** Inclusive start and exclusive end of the window: Dates, or ISO 8601 strings (impossible dates are a 400). */
        from: zTimelineDate("from").nullish(),
        to: zTimelineDate("to").nullish(),
      }).refine((q) => !(q.from && q.to && q.from > q.to), {
        message: "The start date must not be after the end date.",
        path: ["from"],
      }),
    )
    .query(({ ctx, input }) =>
      getTrackerTimeline(ctx.db, {
        userId: ctx.user.id,
        trackerId: input.trackerId,
        limit: input.limit,
        ...(input.cursor ? { cursor: input.cursor } : {}),
        ...(input.from ? { from: input.from } : {}),
        ...(input.to ? { to: input.to } : {}),
      }),
    ),

  series: protectedProcedure
    .input(ZTrackerIdSchema)
    .query(({ ctx, input }) => getNumericSeries(ctx.db, { userId: ctx.user.id, trackerId: input.trackerId })),

  runs: protectedProcedure
    .input(ZTrackerIdSchema.extend({ limit: z.number().int().min(1).max(100).default(20) }))
    .query(({ ctx, input }) =>
      listRefreshRuns(ctx.db, { userId: ctx.user.id, trackerId: input.trackerId, limit: input.limit }),
    ),

  refresh: protectedProcedure
    .input(ZTrackerIdSchema)
    .mutation(({ ctx, input }) =>
      refreshTrackerNow(ctx.db, { userId: ctx.user.id, trackerId: input.trackerId, trigger: "manual" }),
    ),

  /**
   * Refresh now with live progress over SSE: step events, then the result. The client sends a fresh
   * idempotency key per click, so a reconnect replays that run instead of starting another.
   */
  refreshProgress: protectedProcedure
    .input(ZTrackerIdSchema.extend({ idempotencyKey: z.string().min(8).max(200) }))
    .subscription(async function* ({ ctx, input }) {
      yield* streamTrackerRefresh(ctx.db, {
        userId: ctx.user.id,
        trackerId: input.trackerId,
        idempotencyKey: input.idempotencyKey,
      });
    }),

  setStatus: protectedProcedure
    .input(ZTrackerIdSchema.extend({ status: z.enum(["active", "paused", "archived"]) }))
    .mutation(({ ctx, input }) =>
      setTrackerStatus(ctx.db, { userId: ctx.user.id, trackerId: input.trackerId, status: input.status }),
    ),

  setStatusMany: protectedProcedure
    .input(z.object({ trackerIds: z.array(z.string().min(1)).min(1).max(500), status: z.enum(["active", "paused"]) }))
    .mutation(({ ctx, input }) =>
      setTrackersStatus(ctx.db, { userId: ctx.user.id, trackerIds: input.trackerIds, status: input.status }),
    ),

  setSchedule: protectedProcedure
    .input(ZTrackerIdSchema.extend({ scheduleMinutes: z.number().int() }))
    .mutation(({ ctx, input }) =>
      setTrackerSchedule(ctx.db, {
        userId: ctx.user.id,
        trackerId: input.trackerId,
        scheduleMinutes: input.scheduleMinutes,
      }),
    ),
});
