import { tracked } from "@trpc/server";
import { z } from "zod";
import { getSchedulerDetails } from "../../system/get-scheduler-details";
import { getSystemDetails, getSystemStatus } from "../../system/get-system-status";
import { heartbeats } from "../../system/heartbeat";
import { createTRPCRouter, protectedProcedure } from "../trpc";

export const ZHeartbeatInputSchema = z
  .object({
    /** Sent back by the client on reconnect (tracked event id). */
    lastEventId: z
      .string()
      .regex(/^\d{1,15}$/)
      .nullish(),
    intervalMs: z.number().int().min(100).max(60_000).default(15_000),
  })
  .optional();
export type THeartbeatInput = z.input<typeof ZHeartbeatInputSchema>;

export const systemRouter = createTRPCRouter({
  /** What every page's shell shows: the AI mode, label and models, and the version. No paths. */
  status: protectedProcedure.query(() => getSystemStatus()),

  /** The read-only System page: AI, database, runtime; where the data lives only for the owner. */
  details: protectedProcedure.query(({ ctx }) => getSystemDetails({ role: ctx.user.role })),

  /** The System page's scheduler: this server's, every scheduler seen, trackers due and overdue, deliveries waiting. */
  scheduler: protectedProcedure.query(({ ctx }) => getSchedulerDetails(ctx.db, { viewer: { role: ctx.user.role } })),

  /** A numbered tick over SSE; proves subscriptions end to end and lets pages detect a live server. */
  heartbeat: protectedProcedure.input(ZHeartbeatInputSchema).subscription(async function* ({ input, signal }) {
    const after = input?.lastEventId ? Number(input.lastEventId) : 0;
    for await (const beat of heartbeats({ intervalMs: input?.intervalMs ?? 15_000, after, signal })) {
      yield tracked(String(beat.seq), beat);
    }
  }),
});
