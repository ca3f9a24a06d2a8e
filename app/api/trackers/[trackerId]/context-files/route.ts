import { handleContextUploadRequest } from "@/server/api/context-upload-route";

export const dynamic = "force-dynamic";

/** Attach (or replace) a context file on one of the person's trackers: multipart `file` [+ `replaceFileId`]. */
export async function POST(request: Request, ctx: { params: Promise<{ trackerId: string }> }) {
  const { trackerId } = await ctx.params;
  return handleContextUploadRequest(request, trackerId);
}
