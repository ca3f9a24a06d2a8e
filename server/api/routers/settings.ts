import { ZFeedSettingsInputSchema, ZPlaceSearchInputSchema, ZPlaceSearchResultSchema } from "@/contracts/settings";
import { ZUsageThisMonthSchema } from "@/contracts/usage";
import { searchPlaces } from "../../settings/search-places";
import { getUserSettings, updateUserSettings } from "../../settings/user-settings";
import { getUsageThisMonth } from "../../usage";
import { createTRPCRouter, protectedProcedure } from "../trpc";

export const settingsRouter = createTRPCRouter({
  /** Location, calendar URL and memory notes the feed uses. */
  feed: protectedProcedure.query(({ ctx }) => getUserSettings(ctx.db, ctx.user.id)),

  updateFeed: protectedProcedure
    .input(ZFeedSettingsInputSchema)
    .mutation(({ ctx, input }) => updateUserSettings(ctx.db, ctx.user.id, input)),

  /** Places named like the query (Open-Meteo geocoding), to fill the location; stores nothing. */
  searchPlaces: protectedProcedure
    .input(ZPlaceSearchInputSchema)
    .output(ZPlaceSearchResultSchema)
    .query(({ input }) => searchPlaces(input)),

  /** This month's refreshes, model calls and tokens per tracker, and the monthly token budget (docs/design.md §9). */
  usage: protectedProcedure
    .output(ZUsageThisMonthSchema)
    .query(({ ctx }) => getUsageThisMonth(ctx.db, { userId: ctx.user.id })),
});
