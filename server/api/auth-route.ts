import { getAuth } from "../auth";
import { getDb, type TDb } from "../db";
import { databaseUnavailableError, toHttpError } from "../errors";
import { logger } from "../logger";
import { pickRequestId } from "./request-id";

/**
 * /api/auth/*: better-auth's handler (sign-in, sign-out, get-session, account creation). better-auth turns a failed
 * database read into its own opaque 500 ("Failed to get session", or an empty body), so a 500 is checked against
 * the database: when that does not answer either, the request gets the 503 with Retry-After every route sends
 * while the database cannot be reached (server/errors.ts), in better-auth's error shape (`{ code, message }`).
 */
export async function handleAuthRequest(request: Request): Promise<Response> {
  try {
    const db = await getDb();
    const response = await getAuth(db).handler(request);
    if (response.status < 500) return response;
    const outage = await unreachable(db);
    return outage ? errorResponse(outage) : response;
  } catch (error) {
    // Opening the database failed (server/db.ts getDb), or something better-auth does not catch.
    logger.child({ requestId: pickRequestId(request.headers) }).error("auth request failed", {
      path: new URL(request.url).pathname,
      error,
    });
    return errorResponse(error);
  }
}

/** The outage's error when the database does not answer a trivial query, else undefined. */
async function unreachable(db: TDb) {
  try {
    await db.$queryRaw`SELECT 1`;
    return undefined;
  } catch (error) {
    return databaseUnavailableError(error);
  }
}

function errorResponse(error: unknown): Response {
  const { status, body, headers } = toHttpError(error);
  return Response.json(body.error, { status, headers: { "cache-control": "no-store", ...headers } });
}
