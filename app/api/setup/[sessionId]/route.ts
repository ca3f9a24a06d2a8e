import { after } from "next/server";
import { handleSetupTurnRequest } from "@/server/api/setup-turn-route";

export const dynamic = "force-dynamic";

/** One setup chat turn, streamed as an AI SDK UI message stream; it is stored even if the page goes away. */
export async function POST(request: Request, ctx: { params: Promise<{ sessionId: string }> }) {
  const { sessionId } = await ctx.params;
  return handleSetupTurnRequest(request, sessionId, { waitUntil: (work) => after(work) });
}
