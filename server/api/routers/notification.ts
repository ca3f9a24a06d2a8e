import { z } from "zod";
import {
  ZChannelIdInputSchema,
  ZCreateChannelInputSchema,
  ZInboxListInputSchema,
  ZMarkReadInputSchema,
  ZNotificationDefaultsInputSchema,
  ZTrackerRoutingInputSchema,
} from "@/contracts/notifications";
import {
  countUnread,
  createChannel,
  deleteChannel,
  feedStatus,
  getNotificationDefaults,
  getTrackerRouting,
  listChannelDeliveries,
  listChannels,
  listInbox,
  markInboxRead,
  notifyConfigFromEnv,
  resumeChannel,
  revealChannelSecret,
  revokeFeedToken,
  rotateFeedToken,
  sendTestNotice,
  updateNotificationDefaults,
  updateTrackerRouting,
} from "../../notifications";
import { createTRPCRouter, protectedProcedure } from "../trpc";

const ZFeedInputSchema = z.object({ trackerId: z.string().min(1).optional() });
const ZTrackerIdInputSchema = z.object({ trackerId: z.string().min(1) });

/** Notification channels, routing, the inbox and the Atom feed URL (docs/notifications.md). One domain call each. */
export const notificationRouter = createTRPCRouter({
  channels: protectedProcedure.query(({ ctx }) => listChannels(ctx.db, { userId: ctx.user.id })),
  createChannel: protectedProcedure
    .input(ZCreateChannelInputSchema)
    .mutation(({ ctx, input }) =>
      createChannel(ctx.db, { userId: ctx.user.id, channel: input, config: notifyConfigFromEnv() }),
    ),
  deleteChannel: protectedProcedure
    .input(ZChannelIdInputSchema)
    .mutation(({ ctx, input }) => deleteChannel(ctx.db, { userId: ctx.user.id, ...input })),
  resumeChannel: protectedProcedure
    .input(ZChannelIdInputSchema)
    .mutation(({ ctx, input }) => resumeChannel(ctx.db, { userId: ctx.user.id, ...input })),
  revealSecret: protectedProcedure
    .input(ZChannelIdInputSchema)
    .mutation(({ ctx, input }) => revealChannelSecret(ctx.db, { userId: ctx.user.id, ...input })),
  sendTest: protectedProcedure
    .input(ZChannelIdInputSchema)
    .mutation(({ ctx, input }) =>
      sendTestNotice(ctx.db, { userId: ctx.user.id, ...input, config: notifyConfigFromEnv() }),
    ),
  deliveries: protectedProcedure
    .input(ZChannelIdInputSchema)
    .query(({ ctx, input }) => listChannelDeliveries(ctx.db, { userId: ctx.user.id, ...input })),

  defaults: protectedProcedure.query(({ ctx }) => getNotificationDefaults(ctx.db, { userId: ctx.user.id })),
  updateDefaults: protectedProcedure
    .input(ZNotificationDefaultsInputSchema)
    .mutation(({ ctx, input }) => updateNotificationDefaults(ctx.db, { userId: ctx.user.id, defaults: input })),
  trackerRouting: protectedProcedure
    .input(ZTrackerIdInputSchema)
    .query(({ ctx, input }) => getTrackerRouting(ctx.db, { userId: ctx.user.id, ...input })),
  updateTrackerRouting: protectedProcedure
    .input(ZTrackerRoutingInputSchema)
    .mutation(({ ctx, input }) => updateTrackerRouting(ctx.db, { userId: ctx.user.id, routing: input })),

  inbox: protectedProcedure
    .input(ZInboxListInputSchema)
    .query(({ ctx, input }) => listInbox(ctx.db, { userId: ctx.user.id, limit: input.limit })),
  unreadCount: protectedProcedure.query(({ ctx }) => countUnread(ctx.db, { userId: ctx.user.id })),
  markRead: protectedProcedure
    .input(ZMarkReadInputSchema)
    .mutation(({ ctx, input }) => markInboxRead(ctx.db, { userId: ctx.user.id, ids: input.ids })),

  feedStatus: protectedProcedure.query(({ ctx }) => feedStatus(ctx.db, { userId: ctx.user.id })),
  rotateFeed: protectedProcedure.input(ZFeedInputSchema).mutation(({ ctx, input }) =>
    rotateFeedToken(ctx.db, {
      userId: ctx.user.id,
      trackerId: input.trackerId,
      appUrl: notifyConfigFromEnv().appUrl,
    }),
  ),
  revokeFeed: protectedProcedure
    .input(ZFeedInputSchema)
    .mutation(({ ctx, input }) => revokeFeedToken(ctx.db, { userId: ctx.user.id, trackerId: input.trackerId })),
});
