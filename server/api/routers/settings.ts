import { notifyFeedChanged } from "@/server/feed/feed-events";
import { getUserSettings, updateUserSettings, ZFeedSettingsInputSchema } from "@/server/settings/user-settings";
import { createTRPCRouter, protectedProcedure } from "../trpc";

export const settingsRouter = createTRPCRouter({
  /** Location, calendar URL and memory notes the feed uses. */
  feed: protectedProcedure.query(({ ctx }) => getUserSettings(ctx.db, ctx.user.id)),

  updateFeed: protectedProcedure.input(ZFeedSettingsInputSchema).mutation(async ({ ctx, input }) => {
    const saved = await updateUserSettings(ctx.db, ctx.user.id, input);
    await notifyFeedChanged(ctx.db, ctx.user.id, "settings");
    return saved;
  }),
});
