import { getDb, type TDb } from "../db";
import { AppError, toHttpError } from "../errors";
import type { TRefreshOptions } from "../intelligence/refresh";
import { logger } from "../logger";
import { queryTimeline } from "../timeline";
import {
  checkTimelineDate,
  createActiveTracker,
  getTracker,
  getTrackerOverview,
  listTrackerSummaries,
} from "../trackers";
import { refreshTrackerNow } from "../triggers/refresh-tracker-now";
import { authenticateApiToken } from "./authenticate-api-token";

/**
 * The public HTTP API (/api/v1/…) on plain web Request/Response: authenticate the token, call the same
 * domain functions the UI's tRPC routers call, answer JSON. Errors are `{error: {code, message}}` with
 * the AppError's HTTP status.
 */

export type TPublicApiDeps = { db?: TDb; refreshSeams?: Omit<TRefreshOptions, "trigger" | "idempotencyKey"> };

type THandler = (ctx: { db: TDb; userId: string; request: Request; deps: TPublicApiDeps }) => Promise<Response>;

export function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
  });
}

export function errorResponse(error: unknown): Response {
  const { status, body } = toHttpError(error);
  if (status === 500) logger.error("public API error", { error });
  return json(body, status);
}

export async function handlePublicApi(
  request: Request,
  handler: THandler,
  deps: TPublicApiDeps = {},
): Promise<Response> {
  try {
    const db = deps.db ?? (await getDb());
    const { userId } = await authenticateApiToken(db, request.headers.get("authorization"));
    return await handler({ db, userId, request, deps });
  } catch (error) {
    return errorResponse(error);
  }
}

async function readJsonBody(request: Request): Promise<Record<string, unknown>> {
  const text = await request.text();
  if (!text.trim()) throw new AppError("BAD_REQUEST", "Send a JSON object as the request body.");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new AppError("BAD_REQUEST", "The request body is not valid JSON.");
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) {
    throw new AppError("BAD_REQUEST", "The request body must be a JSON object.");
  }
  return body as Record<string, unknown>;
}

function parseDateParam(url: URL, name: string): Date | undefined {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === "") return undefined;
  const checked = checkTimelineDate(raw);
  if (!checked.ok) throw new AppError("BAD_REQUEST", `Query parameter "${name}" ${checked.problem}.`);
  return checked.date;
}

export const publicApi = {
  /** POST /api/v1/trackers */
  createTracker: (async ({ db, userId, request }) => {
    const body = await readJsonBody(request);
    const missing = ["decision", "capability", "capabilityInput", "definition"].filter((k) => body[k] === undefined);
    if (missing.length) throw new AppError("BAD_REQUEST", `Missing field(s): ${missing.join(", ")}.`);
    if (typeof body.decision !== "string") throw new AppError("BAD_REQUEST", "decision must be a string.");
    if (typeof body.capability !== "string") throw new AppError("BAD_REQUEST", "capability must be a string.");
    if (body.scheduleMinutes !== undefined && typeof body.scheduleMinutes !== "number") {
      throw new AppError("BAD_REQUEST", "scheduleMinutes must be a number of minutes.");
    }
    const tracker = await createActiveTracker(db, {
      userId,
      decision: body.decision,
      capability: body.capability,
      capabilityInput: body.capabilityInput,
      definition: body.definition,
      ...(typeof body.scheduleMinutes === "number" ? { scheduleMinutes: body.scheduleMinutes } : {}),
    });
    const overview = await getTrackerOverview(db, { userId, trackerId: tracker.id });
    return json({ tracker: overview.tracker, definition: overview.definition }, 201);
  }) satisfies THandler,

  /** GET /api/v1/trackers */
  listTrackers: (async ({ db, userId }) => {
    return json({ trackers: await listTrackerSummaries(db, { userId }) });
  }) satisfies THandler,

  /** GET /api/v1/trackers/{id} */
  getTracker:
    (trackerId: string): THandler =>
    async ({ db, userId }) => {
      const overview = await getTrackerOverview(db, { userId, trackerId });
      return json({ tracker: overview.tracker, definition: overview.definition, versions: overview.versions });
    },

  /** POST /api/v1/trackers/{id}/refresh (Idempotency-Key header → same run on retry) */
  refresh:
    (trackerId: string): THandler =>
    async ({ db, userId, request, deps }) => {
      const key = request.headers.get("idempotency-key")?.trim() || undefined;
      if (key && key.length > 200) throw new AppError("BAD_REQUEST", "Idempotency-Key must be at most 200 characters.");
      const run = await refreshTrackerNow(
        db,
        { userId, trackerId, trigger: "api", ...(key ? { idempotencyKey: key } : {}) },
        deps.refreshSeams,
      );
      return json({ run }, run.replayed ? 200 : 201);
    },

  /** GET /api/v1/trackers/{id}/timeline?from&to&cursor&limit */
  timeline:
    (trackerId: string): THandler =>
    async ({ db, userId, request }) => {
      const url = new URL(request.url);
      const tracker = await getTracker(db, { userId, trackerId });
      const limitRaw = url.searchParams.get("limit");
      const limit = limitRaw === null ? undefined : Number(limitRaw);
      if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
        throw new AppError("BAD_REQUEST", 'Query parameter "limit" must be a positive whole number.');
      }
      const from = parseDateParam(url, "from");
      const to = parseDateParam(url, "to");
      const cursor = url.searchParams.get("cursor") || undefined;
      const page = await queryTimeline(db, {
        trackerId: tracker.id,
        ...(from ? { from } : {}),
        ...(to ? { to } : {}),
        ...(cursor ? { cursor } : {}),
        ...(limit ? { limit } : {}),
      });
      return json(page);
    },

  /** GET /api/v1/trackers/{id}/state */
  state:
    (trackerId: string): THandler =>
    async ({ db, userId }) => {
      const overview = await getTrackerOverview(db, { userId, trackerId });
      return json({ trackerId, state: overview.state });
    },
};
