import { tracked } from "@trpc/server";
import { z } from "zod";
import { feedEvents } from "../../feed/feed-events";
import { getFeed } from "../../feed/get-feed";
import { timeZoneFromCookieHeader } from "../../settings/time-zone";
import { createTRPCRouter, protectedProcedure } from "../trpc";

/** The browser's zone, from the cookie the feed page writes (docs/feed.md, "Time zone"). */
const browserZone = (headers: Headers) => timeZoneFromCookieHeader(headers.get("cookie"));

export const ZFeedLiveInputSchema = z
  .object({
    lastEventId: z
      .string()
      .regex(/^\d{1,20}$/)
      .nullish(),
  })
  .optional();

export const feedRouter = createTRPCRouter({
  /**
   * The feed as the page shows it: fast path + last cached enhancement + cached calendar; enhancement and
   * a due calendar refetch run after the response (ctx.defer).
   */
  get: protectedProcedure.query(({ ctx }) =>
    getFeed(ctx.db, ctx.user.id, { touch: true, defer: ctx.defer, browserTimeZone: browserZone(ctx.headers) }),
  ),

  /** "Refresh" button: same as get, as a mutation so it is never served from a cache; refetches the calendar too. */
  refresh: protectedProcedure.mutation(({ ctx }) =>
    getFeed(ctx.db, ctx.user.id, {
      touch: true,
      defer: ctx.defer,
      refreshCalendar: true,
      browserTimeZone: browserZone(ctx.headers),
    }),
  ),

  /** Pushes "your feed changed" (enhancement finished, tracker change) over SSE; resumable by event id. */
  live: protectedProcedure.input(ZFeedLiveInputSchema).subscription(async function* ({ ctx, input, signal }) {
    for await (const event of feedEvents(ctx.user.id, { lastEventId: input?.lastEventId ?? null, signal })) {
      yield tracked(event.id, { reason: event.reason });
    }
  }),
});
