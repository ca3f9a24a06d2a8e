import { z } from "zod";
import {
  ZDeleteContextFileRequestSchema,
  ZListContextFilesRequestSchema,
  ZListContextFilesResponseSchema,
} from "@/contracts/context-files";
import { deleteContextFile, listContextFiles } from "../../context";
import { createTRPCRouter, protectedProcedure } from "../trpc";

/** A tracker's context files (uploads go through POST /api/trackers/[trackerId]/context-files: multipart). */
export const contextFileRouter = createTRPCRouter({
  list: protectedProcedure
    .input(ZListContextFilesRequestSchema)
    .output(ZListContextFilesResponseSchema)
    .query(({ ctx, input }) => listContextFiles(ctx.db, { userId: ctx.user.id, trackerId: input.trackerId })),

  delete: protectedProcedure
    .input(ZDeleteContextFileRequestSchema)
    .output(z.object({ deleted: z.literal(true) }))
    .mutation(({ ctx, input }) => deleteContextFile(ctx.db, { userId: ctx.user.id, ...input })),
});
