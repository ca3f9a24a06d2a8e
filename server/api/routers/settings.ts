import { getUserSettings, updateUserSettings, ZFeedSettingsInputSchema } from "@/server/settings/user-settings";
import { createTRPCRouter, protectedProcedure } from "../trpc";

export const settingsRouter = createTRPCRouter({
  /** Location, calendar URL and memory notes the feed uses. */
  feed: protectedProcedure.query(({ ctx }) => getUserSettings(ctx.db, ctx.user.id)),

  updateFeed: protectedProcedure
    .input(ZFeedSettingsInputSchema)
    .mutation(({ ctx, input }) => updateUserSettings(ctx.db, ctx.user.id, input)),
});
