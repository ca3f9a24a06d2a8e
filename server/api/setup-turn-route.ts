import { createUIMessageStreamResponse } from "ai";
import type { TLanguageModel } from "../ai";
import { capabilityConfigFromEnv, type TCapabilityConfig } from "../capabilities";
import { getDb, type TDb } from "../db";
import { AppError, describeError, toHttpError } from "../errors";
import { startSetupTurn, ZSetupTurnRequestSchema } from "../intelligence/setup";
import { logger } from "../logger";
import { enforceRateLimit } from "../usage";
import { readJsonBody } from "./read-json-body";
import { pickRequestId } from "./request-id";
import { requireRouteUser } from "./route-user";

export type TSetupTurnRouteDeps = {
  /** Keeps the process (a serverless function) alive until the turn is stored: Next's `after`. */
  waitUntil: (work: Promise<void>) => void;
  db?: TDb;
  config?: TCapabilityConfig;
  /** Tests pin the drafter; null = rules mode. Defaults to the configured drafter. */
  model?: TLanguageModel | null;
};

/**
 * POST /api/setup/[sessionId]: one setup chat turn. Body `{ message }` (the UI message useChat just
 * added); answers with the reply as an AI SDK UI message stream (SSE), or an error as
 * `{ error: { code, message } }` with the status and headers from toHttpError — the same mapping as every route
 * (a rate-limited turn: 429 with Retry-After).
 */
export async function handleSetupTurnRequest(
  request: Request,
  sessionId: string,
  deps: TSetupTurnRouteDeps,
): Promise<Response> {
  const log = logger.child({ requestId: pickRequestId(request.headers), route: "setup-turn" });
  try {
    const db = deps.db ?? (await getDb());
    const user = await requireRouteUser(db, request);
    const body = ZSetupTurnRequestSchema.safeParse(await readJsonBody(request));
    if (!body.success) {
      const issue = body.error.issues[0];
      throw new AppError(
        "BAD_REQUEST",
        issue?.message.endsWith(".") ? issue.message : "Send { message: { id, role: 'user', parts } }.",
        {
          details: { issues: body.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })) },
        },
      );
    }
    // Each turn may run the drafter (model calls) and a sample fetch: rate-limited per person (docs/design.md §9).
    await enforceRateLimit(db, { userId: user.id, action: "setup-turn" });
    const text = body.data.message.parts.map((p) => (p.type === "text" ? (p.text ?? "") : "")).join("");
    const turn = await startSetupTurn(db, {
      userId: user.id,
      sessionId,
      message: { id: body.data.message.id, text },
      config: deps.config ?? capabilityConfigFromEnv(),
      log,
      ...(deps.model === undefined ? {} : { model: deps.model }),
    });
    deps.waitUntil(turn.done);
    return createUIMessageStreamResponse({ stream: turn.stream, headers: { "cache-control": "no-store" } });
  } catch (error) {
    const { status, body, headers } = toHttpError(error);
    if (status >= 500) log.error("setup turn request failed", { error: describeError(error) });
    return Response.json(body, { status, headers });
  }
}
