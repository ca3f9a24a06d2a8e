import { z } from "zod";
import {
  ZElementAtRequestSchema,
  ZPageShotRequestSchema,
  ZPageViewRequestSchema,
  ZPointAtElementRequestSchema,
} from "@/contracts/setup-page-view";
import { ZChoosePriceRequestSchema } from "@/contracts/setup-price-candidates";
import { getAiStatus, getModel } from "../../ai";
import { capabilityConfigFromEnv } from "../../capabilities";
import {
  applyContextFilesToDraft,
  choosePriceCandidate,
  createSetupSession,
  elementAtPoint,
  getPageShotImage,
  getPageView,
  getSetupState,
  listOpenSetupSessions,
  listPriceCandidates,
  lockSetup,
  openEditSession,
  pointAtElement,
  rereadSetupPage,
  saveSetupDraft,
  setSetupReadMode,
  ZSetReadModeInput,
} from "../../intelligence/setup";
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
  /** The sample's prices, for pointing at the one to watch (empty unless it offers two or more). */
  priceCandidates: protectedProcedure
    .input(ZSessionInput)
    .query(({ ctx, input }) => listPriceCandidates(ctx.db, { userId: ctx.user.id, sessionId: input.sessionId })),
  /** The person pointed at one of them: the draft's main price field watches it now. */
  choosePrice: protectedProcedure
    .input(ZChoosePriceRequestSchema)
    .mutation(({ ctx, input }) => choosePriceCandidate(ctx.db, { userId: ctx.user.id, ...input })),
  /** The page view: the sample page made inert, with what each field reads on it (docs/page-view.md). */
  pageView: protectedProcedure
    .input(ZPageViewRequestSchema)
    .query(({ ctx, input }) =>
      getPageView(ctx.db, { userId: ctx.user.id, ...input, config: capabilityConfigFromEnv() }),
    ),
  /** The page's picture (when a browser took one), as a data URL. */
  pageShot: protectedProcedure
    .input(ZPageShotRequestSchema)
    .query(({ ctx, input }) => getPageShotImage(ctx.db, { userId: ctx.user.id, ...input })),
  /** A click on the picture: the element under it, which `pointAt` then binds. */
  elementAt: protectedProcedure
    .input(ZElementAtRequestSchema)
    .mutation(({ ctx, input }) =>
      elementAtPoint(ctx.db, { userId: ctx.user.id, ...input, config: capabilityConfigFromEnv() }),
    ),
  /** The person pointed at an element of the page view: a field (existing or new) reads it now. */
  pointAt: protectedProcedure
    .input(ZPointAtElementRequestSchema)
    .mutation(({ ctx, input }) =>
      pointAtElement(ctx.db, { userId: ctx.user.id, ...input, config: capabilityConfigFromEnv() }),
    ),
  /** "Read the page again": a fresh sample for the page view; the page before stays as "earlier". */
  rereadPage: protectedProcedure.input(ZSessionInput).mutation(({ ctx, input }) =>
    rereadSetupPage(ctx.db, {
      userId: ctx.user.id,
      sessionId: input.sessionId,
      config: capabilityConfigFromEnv(),
      model: getModel("drafter"),
      log: ctx.log,
    }),
  ),
  /** The card's read-mode switch: re-reads the sample with that `render` mode (and redrafts a new setup). */
  setReadMode: protectedProcedure.input(ZSessionInput.extend(ZSetReadModeInput.shape)).mutation(({ ctx, input }) =>
    setSetupReadMode(ctx.db, {
      userId: ctx.user.id,
      sessionId: input.sessionId,
      render: input.render,
      config: capabilityConfigFromEnv(),
    }),
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
