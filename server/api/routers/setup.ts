import { z } from "zod";
import { getAiStatus } from "@/server/ai";
import {
  applyContextFilesToDraft,
  createSetupSession,
  getSetupState,
  listOpenSetupSessions,
  lockSetup,
  openEditSession,
  saveSetupDraft,
} from "@/server/intelligence/setup";
import { createTRPCRouter, protectedProcedure } from "../trpc";

const ZSessionInput = z.object({ sessionId: z.string().min(1).max(100) });

/** Tracker setup chat. Turns themselves stream through app/api/setup/[sessionId] (AI SDK UI message stream). */
export const setupRouter = createTRPCRouter({
  start: protectedProcedure.mutation(async ({ ctx }) => {
    const session = await createSetupSession(ctx.db, { userId: ctx.user.id });
    return { sessionId: session.id, closedSessions: session.closedSessions };
  }),
  openSessions: protectedProcedure.query(({ ctx }) => listOpenSetupSessions(ctx.db, { userId: ctx.user.id })),
  state: protectedProcedure.input(ZSessionInput).query(async ({ ctx, input }) => ({
    ...(await getSetupState(ctx.db, { userId: ctx.user.id, sessionId: input.sessionId })),
    aiOn: getAiStatus().mode !== "rules",
  })),
  saveDraft: protectedProcedure
    .input(ZSessionInput.extend({ definition: z.unknown() }))
    .mutation(({ ctx, input }) =>
      saveSetupDraft(ctx.db, { userId: ctx.user.id, sessionId: input.sessionId, definition: input.definition }),
    ),
  /** After the setup card attached files: the draft takes them in (a stated "our price is 10.00" → a context rule). */
  applyContextFiles: protectedProcedure
    .input(ZSessionInput)
    .mutation(({ ctx, input }) =>
      applyContextFilesToDraft(ctx.db, { userId: ctx.user.id, sessionId: input.sessionId }),
    ),
  lock: protectedProcedure
    .input(ZSessionInput)
    .mutation(({ ctx, input }) => lockSetup(ctx.db, { userId: ctx.user.id, sessionId: input.sessionId })),
  openEdit: protectedProcedure
    .input(z.object({ trackerId: z.string().min(1).max(100) }))
    .mutation(async ({ ctx, input }) => {
      const session = await openEditSession(ctx.db, { userId: ctx.user.id, trackerId: input.trackerId });
      return { sessionId: session.id };
    }),
});
