import { type TReplayEvent, ZReplayStreamBodySchema } from "@/contracts/replay";
import { getDb, type TDb } from "../db";
import { describeError, invalidInputError, toHttpError, toPublicError } from "../errors";
import { logger } from "../logger";
import { replayTrackerWithinLimit } from "../trackers";
import { readJsonBody } from "./read-json-body";
import { pickRequestId } from "./request-id";
import { requireRouteUser } from "./route-user";

export type TReplayStreamDeps = { db?: TDb };

export const NDJSON_CONTENT_TYPE = "application/x-ndjson; charset=utf-8";

const line = (event: TReplayEvent) => new TextEncoder().encode(`${JSON.stringify(event)}\n`);

/**
 * POST /api/trackers/[trackerId]/replay: the page's replay with progress. Body: the replay request without
 * trackerId (`{ from?, to?, definition?, modelBudget?, planOnly? }`). Authenticated by the session cookie like
 * every route; rate-limited with the other replays.
 *
 * Until the replay has said anything, a failure is an ordinary error response (`{ error }` with its status: 400,
 * 404 for another person's tracker, 429…). From then on the answer is 200 and NDJSON, one ZReplayEventSchema
 * object per line, in the order the replay says them: `progress`… over the captures (the pass that judges by code
 * and stored verdicts, and counts what would need the model), then `plan`, then — with a model budget and something
 * to ask — `progress`… again for the model pass, then `result` or `error`. Closing the request (the page's Cancel,
 * or the tab going away) aborts the replay's signal; it stops after the capture in hand and, if anyone still reads,
 * answers a `result` with `cancelled: true`.
 */
export async function handleReplayStreamRequest(
  request: Request,
  trackerId: string,
  deps: TReplayStreamDeps = {},
): Promise<Response> {
  const log = logger.child({ requestId: pickRequestId(request.headers), route: "replay-stream" });
  try {
    const db = deps.db ?? (await getDb());
    const user = await requireRouteUser(db, request);
    const raw = (await readJsonBody(request)) ?? {};
    const body = ZReplayStreamBodySchema.safeParse(raw);
    if (!body.success) throw invalidInputError(body.error.issues);

    // The stream's own cancel (the reader gave up) aborts the replay too, as a closed request does.
    const cancelled = new AbortController();
    const signal = AbortSignal.any([request.signal, cancelled.signal]);
    let controller: ReadableStreamDefaultController<Uint8Array> | null = null;
    const early: Uint8Array[] = [];
    let closed = false;
    const send = (event: TReplayEvent) => {
      if (closed) return;
      const bytes = line(event);
      if (!controller) early.push(bytes);
      else {
        try {
          controller.enqueue(bytes);
        } catch {
          closed = true; // the reader is gone
        }
      }
    };
    const end = () => {
      if (closed) return;
      closed = true;
      try {
        controller?.close();
      } catch {
        // already closed by a cancel
      }
    };

    // The first event (or an early end) decides the answer's status; until then nothing is streamed.
    let said!: () => void;
    const started = new Promise<void>((resolve) => {
      said = resolve;
    });
    const replay = replayTrackerWithinLimit(
      db,
      { ...body.data, trackerId, userId: user.id },
      {
        onPlan: (plan) => {
          send({ type: "plan", plan });
          said();
        },
        onProgress: (done, total) => {
          send({ type: "progress", done, total });
          said();
        },
        signal,
      },
    );
    const outcome = replay.then(
      (result) => ({ ok: true as const, result }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    const first = await Promise.race([started.then(() => null), outcome]);
    if (first && !first.ok) throw first.error; // refused before a word: an ordinary error response
    // A result without a plan event (nothing was heard): the plan still comes first.
    if (first?.ok && early.length === 0) send({ type: "plan", plan: first.result.plan });

    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        controller = c;
        for (const bytes of early.splice(0)) c.enqueue(bytes);
        void outcome.then((settled) => {
          if (settled.ok) send({ type: "result", result: settled.result });
          else {
            const pub = toPublicError(settled.error);
            if (pub.code === "INTERNAL") log.error("replay failed", { error: describeError(settled.error) });
            send({ type: "error", code: pub.code, message: pub.message });
          }
          end();
        });
      },
      cancel() {
        closed = true;
        cancelled.abort();
      },
    });
    return new Response(stream, {
      status: 200,
      headers: { "content-type": NDJSON_CONTENT_TYPE, "cache-control": "no-store", "x-accel-buffering": "no" },
    });
  } catch (error) {
    const { status, body, headers } = toHttpError(error);
    if (status >= 500) log.error("replay request failed", { error: describeError(error) });
    return Response.json(body, { status, headers });
  }
}
