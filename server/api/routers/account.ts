import { z } from "zod";
import {
  createInvite,
  getAccessState,
  listInvites,
  listUserSessions,
  revokeInvite,
  revokeUserSession,
  setOpenSignUp,
  ZCreateInviteSchema,
} from "../../auth";
import { createTRPCRouter, ownerProcedure, protectedProcedure } from "../trpc";

/** Settings → Account: sessions (everyone), invites and open sign-up (the owner). Passwords go through better-auth. */
export const accountRouter = createTRPCRouter({
  sessions: protectedProcedure.query(({ ctx }) =>
    listUserSessions(ctx.db, { userId: ctx.user.id, currentSessionId: ctx.user.sessionId ?? null }),
  ),

  revokeSession: protectedProcedure
    .input(z.object({ sessionId: z.string().min(1).max(200) }))
    .mutation(({ ctx, input }) => revokeUserSession(ctx.db, { userId: ctx.user.id, sessionId: input.sessionId })),

  access: ownerProcedure.query(({ ctx }) => getAccessState(ctx.db)),

  setOpenSignUp: ownerProcedure
    .input(z.object({ open: z.boolean() }))
    .mutation(({ ctx, input }) => setOpenSignUp(ctx.db, { userId: ctx.user.id, open: input.open })),

  invites: ownerProcedure.query(({ ctx }) => listInvites(ctx.db, { userId: ctx.user.id })),

  createInvite: ownerProcedure
    .input(ZCreateInviteSchema)
    .mutation(({ ctx, input }) => createInvite(ctx.db, { userId: ctx.user.id, ...input })),

  revokeInvite: ownerProcedure
    .input(z.object({ inviteId: z.string().min(1).max(200) }))
    .mutation(({ ctx, input }) => revokeInvite(ctx.db, { userId: ctx.user.id, inviteId: input.inviteId })),
});
