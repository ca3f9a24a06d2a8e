import { z } from "zod";
import { createTRPCContext } from "@/server/api/trpc";
import { capabilityConfigFromEnv } from "@/server/capabilities";
import { toPublicError } from "@/server/errors";
import { getSetupSession, handleSetupMessage, type TSetupEvent } from "@/server/intelligence/setup";

export const dynamic = "force-dynamic";

const ZBodySchema = z.object({ text: z.string() });

/**
 * One setup chat turn, streamed as NDJSON events (messages, sample, partial drafts, lock). The turn
 * runs to completion even if the page goes away — everything is persisted — so a reload resumes it.
 */
export async function POST(req: Request, ctx: { params: Promise<{ sessionId: string }> }) {
  const { sessionId } = await ctx.params;
  const trpcCtx = await createTRPCContext({ headers: req.headers });
  const user = trpcCtx.user;
  if (!user) return Response.json({ message: "Sign in to continue." }, { status: 401 });
  const body = ZBodySchema.safeParse(await req.json().catch(() => null));
  if (!body.success) return Response.json({ message: "Send { text }." }, { status: 400 });
  try {
    await getSetupSession(trpcCtx.db, { userId: user.id, sessionId });
  } catch (error) {
    const pub = toPublicError(error);
    return Response.json({ message: pub.message }, { status: pub.code === "NOT_FOUND" ? 404 : 500 });
  }

  const encoder = new TextEncoder();
  let controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    cancel() {
      controller = null;
    },
  });
  const emit = (event: TSetupEvent) => {
    try {
      controller?.enqueue(encoder.encode(`${JSON.stringify(event)}\n`));
    } catch {
      controller = null; // the page went away; the turn carries on and persists
    }
  };
  void handleSetupMessage(trpcCtx.db, {
    userId: user.id,
    sessionId,
    text: body.data.text,
    config: capabilityConfigFromEnv(),
    emit,
    log: trpcCtx.log,
  })
    .catch((error) => {
      emit({ type: "message", message: errorMessage(toPublicError(error).message) });
      emit({ type: "done" });
    })
    .finally(() => {
      try {
        controller?.close();
      } catch {
        // already closed
      }
    });

  return new Response(stream, {
    headers: { "content-type": "application/x-ndjson; charset=utf-8", "cache-control": "no-store" },
  });
}

function errorMessage(text: string) {
  return {
    id: crypto.randomUUID(),
    role: "assistant" as const,
    parts: [{ type: "text" as const, text }],
    metadata: { kind: "error" as const },
  };
}
