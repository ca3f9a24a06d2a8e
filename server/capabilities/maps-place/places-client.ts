import { parseRetryAfter } from "../../lib/retry-after";
import { CapabilityFailure, failed } from "../envelope";
import type { TCapabilityEnvelope } from "../types";
import { PLACE_FIELD_MASK, type TGooglePlace, ZGooglePlaceSchema } from "./normalize-place";

/**
 * GET {baseUrl}/v1/places/{placeId} — Places API (New) place details. The base URL is operator
 * configuration (a local fake in tests), so it is trusted and not subject to the scrape SSRF rules.
 * `requestPlacesJson` is shared with maps-search's text search: same key, byte cap, timeout and error wording.
 */
export type TPlacesRequest = {
  apiKey: string;
  baseUrl: string;
  timeoutMs: number;
  signal?: AbortSignal;
  stats: { requests: number; bytes: number; httpStatus?: number };
  languageCode?: string;
};

const MAX_BYTES = 1_000_000;

/** Every verb that reads Google Maps refuses the same way without a key (maps.place, maps.search). */
export function mapsNotConfigured<T>(): TCapabilityEnvelope<T> {
  return failed(
    "NOT_CONFIGURED",
    "Google Maps is not configured: set GOOGLE_MAPS_API_KEY to a key with the Places API (New) enabled, then restart the app.",
  );
}

type TGoogleError = { error?: { code?: number; message?: string; status?: string } };

/** What a request was for, so a 400 or 404 names what to check. */
export type TPlacesSubject = { placeId: string } | { search: string };

function describeError(
  status: number,
  body: string,
  subject: TPlacesSubject,
  retryAfter: string | null,
): CapabilityFailure {
  let g: TGoogleError["error"];
  try {
    g = (JSON.parse(body) as TGoogleError).error;
  } catch {
    g = undefined;
  }
  const why = g?.message ? `: ${g.message.slice(0, 300)}` : "";
  const tag = `${status}${g?.status ? ` ${g.status}` : ""}`;
  // A 429 or 503 with Retry-After: the host gate holds the Places host for every maps tracker that long, and this
  // tracker backs off at least as long (docs/scheduling.md, "Politeness per host").
  const retryAfterMs = status === 429 || status === 503 ? parseRetryAfter(retryAfter) : undefined;
  const wait = retryAfterMs !== undefined ? ` It asked us to wait ${Math.ceil(retryAfterMs / 1000)} s.` : "";
  const details = {
    httpStatus: status,
    googleStatus: g?.status,
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  };
  if (status === 404 && "placeId" in subject) {
    return new CapabilityFailure(
      "NOT_FOUND",
      `Google Maps has no place with ID ${subject.placeId} (${tag}). Check the place ID; it may have been removed or merged.`,
      false,
      details,
    );
  }
  if (status === 400) {
    const check = "placeId" in subject ? `the place ID ${subject.placeId}` : `the search "${subject.search}"`;
    return new CapabilityFailure(
      "INVALID_INPUT",
      `Google Maps rejected the request (${tag}${why}). Check ${check}.`,
      false,
      details,
    );
  }
  if (status === 401 || status === 403) {
    return new CapabilityFailure(
      "UNAUTHORIZED",
      `Google Maps refused the API key (${tag}${why}). Check GOOGLE_MAPS_API_KEY and that the Places API (New) is enabled for it.`,
      false,
      details,
    );
  }
  if (status === 429) {
    return new CapabilityFailure(
      "RATE_LIMITED",
      `Google Maps quota exceeded (${tag}${why}).${wait} It will be retried later; raise the quota if this persists.`,
      true,
      details,
    );
  }
  return new CapabilityFailure(
    "HTTP_ERROR",
    `Google Maps answered ${tag}${why}.${wait} ${status >= 500 ? "This is usually temporary; it will be retried." : ""}`.trim(),
    status >= 500,
    details,
  );
}

export async function fetchPlaceDetails(placeId: string, req: TPlacesRequest): Promise<TGooglePlace> {
  const url = new URL(`/v1/places/${encodeURIComponent(placeId)}`, req.baseUrl);
  if (req.languageCode) url.searchParams.set("languageCode", req.languageCode);
  const json = await requestPlacesJson(url, { fieldMask: PLACE_FIELD_MASK }, req, { placeId });
  const parsed = ZGooglePlaceSchema.safeParse(json);
  if (!parsed.success) {
    throw new CapabilityFailure(
      "INVALID_RESPONSE",
      "Google Maps sent a place in an unexpected shape. It will be retried.",
      true,
    );
  }
  return parsed.data;
}

/**
 * One Places API (New) call: GET, or POST with a JSON body. Counts it in `req.stats`, caps the answer at MAX_BYTES,
 * and throws a CapabilityFailure in words for a timeout, an unreachable server, an error status or invalid JSON.
 */
export async function requestPlacesJson(
  url: URL,
  call: { fieldMask: string; body?: unknown },
  req: TPlacesRequest,
  subject: TPlacesSubject,
): Promise<unknown> {
  const timeout = AbortSignal.timeout(req.timeoutMs);
  const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
  let res: Response;
  let body: string;
  try {
    req.stats.requests++;
    const headers: Record<string, string> = {
      "X-Goog-Api-Key": req.apiKey,
      "X-Goog-FieldMask": call.fieldMask,
      accept: "application/json",
    };
    if (call.body !== undefined) headers["content-type"] = "application/json";
    res = await fetch(url, {
      method: call.body === undefined ? "GET" : "POST",
      headers,
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
      signal,
      redirect: "error",
    });
    req.stats.httpStatus = res.status;
    body = await res.text();
    req.stats.bytes += body.length;
  } catch (err) {
    if (timeout.aborted) {
      throw new CapabilityFailure(
        "TIMEOUT",
        `Google Maps did not answer within ${req.timeoutMs / 1000} s. It will be retried.`,
        true,
      );
    }
    if (req.signal?.aborted) throw new CapabilityFailure("ABORTED", "The Google Maps request was cancelled.", true);
    const cause =
      (err as { cause?: { code?: string } }).cause?.code ?? (err instanceof Error ? err.message : String(err));
    throw new CapabilityFailure(
      "CONNECTION_FAILED",
      `Could not reach Google Maps at ${url.origin} (${cause}). It will be retried.`,
      true,
    );
  }
  if (body.length > MAX_BYTES) {
    throw new CapabilityFailure("INVALID_RESPONSE", "Google Maps sent an unexpectedly large response.", true);
  }
  if (!res.ok) throw describeError(res.status, body, subject, res.headers.get("retry-after"));
  try {
    return JSON.parse(body) as unknown;
  } catch {
    throw new CapabilityFailure(
      "INVALID_RESPONSE",
      "Google Maps sent a response that is not valid JSON. It will be retried.",
      true,
    );
  }
}
