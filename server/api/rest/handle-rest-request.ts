import type { ZodError } from "zod";
import { findUnstorableText } from "@/contracts/common";
import { authenticateApiToken } from "../../api-tokens";
import { getDb } from "../../db";
import { AppError, invalidInputError, toHttpError } from "../../errors";
import { logger } from "../../logger";
import { readJsonBody } from "../read-json-body";
import type { TRestContext, TRestRoute } from "./define-route";
import { buildOpenApiDocument } from "./openapi";
import { REST_ROUTES } from "./routes";

/**
 * The REST adapter for /api/v1: match the route, authenticate the API token, assemble the request from path,
 * query, headers and body, validate it with the route's contract, make the one domain call, answer JSON.
 * Errors use the one error→HTTP table (toHttpError), with per-field issues for invalid input.
 */
export const API_PREFIX = "/api/v1";

export type TRestDeps = Partial<Pick<TRestContext, "db" | "refreshSeams">>;

function json(body: unknown, status: number, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers },
  });
}

/** Each route with its path as a pattern, `{name}` a named group of one segment; made once, not per request. */
const ROUTE_PATTERNS = REST_ROUTES.map((route) => ({
  route,
  pattern: new RegExp(`^${route.path.replace(/\{(\w+)\}/g, "(?<$1>[^/]+)")}/?$`),
}));

function decodePathParam(name: string, value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new AppError("BAD_REQUEST", `The path parameter ${name} is not valid percent-encoding.`);
  }
}

function matchRoute(
  method: string,
  path: string,
): { route: TRestRoute; params: Record<string, string> } | "405" | null {
  let pathMatched = false;
  for (const { route, pattern } of ROUTE_PATTERNS) {
    const m = pattern.exec(path);
    if (!m) continue;
    pathMatched = true;
    if (route.method !== method) continue;
    const params: Record<string, string> = {};
    for (const [k, v] of Object.entries(m.groups ?? {})) params[k] = decodePathParam(k, v);
    return { route, params };
  }
  return pathMatched ? "405" : null;
}

async function assembleInput(route: TRestRoute, request: Request, params: Record<string, string>) {
  const url = new URL(request.url);
  const input: Record<string, unknown> = {};
  if (route.method === "GET" || route.method === "DELETE") {
    for (const [k, v] of url.searchParams) if (v !== "") input[k] = v;
  } else {
    const body = await readJsonBody(request);
    if (body !== undefined && (typeof body !== "object" || body === null || Array.isArray(body))) {
      throw new AppError("BAD_REQUEST", "The request body must be a JSON object.");
    }
    Object.assign(input, body);
  }
  for (const [field, header] of Object.entries(route.headers ?? {})) {
    // A header field is read from its header only, never from the query or body.
    delete input[field];
    const value = request.headers.get(header as string)?.trim();
    if (value) input[field] = value;
  }
  Object.assign(input, params); // path parameters win over anything sent elsewhere
  return input;
}

/** A 400 whose message names what is missing, or the first problem; every issue is in details and fieldErrors. */
function invalidInput(error: ZodError, input: Record<string, unknown>): AppError {
  const missing = error.issues
    .filter((i) => i.path.length === 1 && input[String(i.path[0])] === undefined)
    .map((i) => String(i.path[0]));
  return invalidInputError(error.issues, missing.length ? { message: `Missing field(s): ${missing.join(", ")}.` } : {});
}

export async function handleRestRequest(request: Request, deps: TRestDeps = {}): Promise<Response> {
  const path = new URL(request.url).pathname.slice(API_PREFIX.length) || "/";
  try {
    if (request.method === "GET" && path === "/openapi.json") return json(buildOpenApiDocument(), 200);
    const matched = matchRoute(request.method, path);
    if (matched === null) throw new AppError("NOT_FOUND", `No API route ${request.method} ${API_PREFIX}${path}.`);
    if (matched === "405") {
      throw new AppError("METHOD_NOT_ALLOWED", `${request.method} is not allowed on ${API_PREFIX}${path}.`);
    }
    const { route, params } = matched;
    const db = deps.db ?? (await getDb());
    const { userId } = await authenticateApiToken(db, request.headers.get("authorization"));
    const input = await assembleInput(route, request, params);
    const bad = findUnstorableText(input);
    if (bad) throw new AppError("BAD_REQUEST", `${bad}: text must not contain NUL characters or lone surrogates.`);
    const parsed = route.request.safeParse(input);
    if (!parsed.success) throw invalidInput(parsed.error, input);
    const result = route.response.parse(
      await route.handler(
        { db, userId, ...(deps.refreshSeams ? { refreshSeams: deps.refreshSeams } : {}) },
        parsed.data,
      ),
    );
    return json(result, typeof route.status === "function" ? route.status(result) : route.status);
  } catch (error) {
    const { status, body, headers } = toHttpError(error);
    if (status >= 500) logger.error("public API error", { path, error });
    return json(body, status, headers);
  }
}
