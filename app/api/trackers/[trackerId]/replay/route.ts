import { handleReplayStreamRequest } from "@/server/api/replay-stream-route";

export const dynamic = "force-dynamic";

/** Replay a tracker's draft over its stored history, streamed as NDJSON (plan, progress…, result); closing cancels. */
export async function POST(request: Request, ctx: { params: Promise<{ trackerId: string }> }) {
  const { trackerId } = await ctx.params;
  return handleReplayStreamRequest(request, trackerId);
}
