import { z } from "zod";
import { createApiToken, listApiTokens, revokeApiToken } from "../../api-tokens";
import { createTRPCRouter, protectedProcedure } from "../trpc";

export const apiTokenRouter = createTRPCRouter({
  list: protectedProcedure.query(({ ctx }) => listApiTokens(ctx.db, { userId: ctx.user.id })),
  /** Returns the plain token once; it cannot be shown again. */
  create: protectedProcedure
    .input(z.object({ name: z.string() }))
    .mutation(({ ctx, input }) => createApiToken(ctx.db, { userId: ctx.user.id, name: input.name })),
  revoke: protectedProcedure
    .input(z.object({ tokenId: z.string().min(1) }))
    .mutation(({ ctx, input }) => revokeApiToken(ctx.db, { userId: ctx.user.id, tokenId: input.tokenId })),
});
