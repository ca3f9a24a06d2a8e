import { z } from "zod";
import { hostOfUrl } from "../../lib/host-gate";
import { completed, failedFrom } from "../envelope";
import type { TCapability, TCapabilityContext, TCapabilityEnvelope } from "../types";
import { recordUsage } from "../usage";
import { ZStructuredDocumentSchema } from "../web-scrape/format-structured-document";
import { normalizePlace, placeToDocument, ZPlaceSchema } from "./normalize-place";
import { fetchPlaceDetails, mapsNotConfigured } from "./places-client";

export const ZMapsPlaceInputSchema = z.object({
  placeId: z
    .string()
    .trim()
    .transform((v) => v.replace(/^places\//, "")) // accept the API resource name too
    .pipe(
      z
        .string()
        .min(1, "Enter a Google Maps place ID (it looks like ChIJN1t_tDeuEmsRUsoyG83frY4).")
        .max(512, "That is too long to be a Google Maps place ID.")
        .regex(
          /^[A-Za-z0-9_-]+$/,
          "A Google Maps place ID contains only letters, digits, - and _ (e.g. ChIJN1t_tDeuEmsRUsoyG83frY4).",
        ),
    ),
});
export type TMapsPlaceInput = z.infer<typeof ZMapsPlaceInputSchema>;

export const ZMapsPlaceOutputSchema = z.object({
  place: ZPlaceSchema,
  /** Hash this (with the definition version). */
  document: ZStructuredDocumentSchema,
  fetchedAt: z.string(),
});
export type TMapsPlaceOutput = z.infer<typeof ZMapsPlaceOutputSchema>;

export const MAPS_PLACE = "maps.place";

async function readPlace(
  input: TMapsPlaceInput,
  ctx: TCapabilityContext,
): Promise<TCapabilityEnvelope<TMapsPlaceOutput>> {
  const { apiKey, baseUrl, timeoutMs } = ctx.config.maps;
  if (!apiKey) return mapsNotConfigured();
  const startedAt = new Date();
  const stats = { requests: 0, bytes: 0, httpStatus: undefined as number | undefined };
  let envelope: TCapabilityEnvelope<TMapsPlaceOutput>;
  try {
    const raw = await fetchPlaceDetails(input.placeId, { apiKey, baseUrl, timeoutMs, signal: ctx.signal, stats });
    const place = normalizePlace(raw, input.placeId);
    envelope = completed({ place, document: placeToDocument(place), fetchedAt: startedAt.toISOString() });
  } catch (err) {
    envelope = failedFrom(err, "the Google Maps place");
  }
  await recordUsage(ctx, MAPS_PLACE, input, envelope, stats, startedAt);
  return envelope;
}

export const mapsPlace: TCapability<TMapsPlaceInput, TMapsPlaceOutput> = {
  name: MAPS_PLACE,
  description:
    "Reads a Google Maps place (Places API New) and returns a normalized place: name, rating, review count, opening hours, price level, business status, description, address, website and phone.",
  inputSchema: ZMapsPlaceInputSchema as z.ZodType<TMapsPlaceInput>,
  outputSchema: ZMapsPlaceOutputSchema,
  execute: readPlace,
  noun: "Google Maps place",
  describeTarget: (input) => `Google Maps place ${input.placeId}`,
  target: { arg: "placeId", describe: "The Google Maps place id, e.g. ChIJN1t_tDeuEmsRUsoyG83frY4", find: findPlaceId },
  identity: "place_id",
  drafterHint:
    "maps.place reads a Google Maps place (needs placeId): rating, review count, opening hours, price level, business status.",
  // Every call goes to the Places API: its host is gated like any site's, which also keeps us under its default quota.
  hostOf: (_input, config) => hostOfUrl(config.maps.baseUrl),
  readBack: (input, results) => {
    const r = (results ?? {}) as Partial<TMapsPlaceOutput>;
    const placeId = r.place?.placeId ?? input?.placeId;
    const document = r.document ?? r;
    return {
      document,
      raw: { json: r.place ?? document },
      source: `Google Maps place ${placeId ?? ""}`.trim(),
      ids: placeId ? { placeId } : {},
    };
  },
};

// Google place ids start with ChIJ (most) or Gh/Ei; also accept an explicit "place id: …".
const PLACE_ID_RE = /\b(ChIJ[0-9A-Za-z_-]{10,})\b/;
const EXPLICIT_PLACE_RE = /\bplace[\s_-]?id\s*[:=]?\s*([0-9A-Za-z_-]{10,})\b/i;

/** A Google Maps place id in a message (a bare ChIJ… id or "place id: …"). */
function findPlaceId(text: string): string | null {
  return PLACE_ID_RE.exec(text)?.[1] ?? EXPLICIT_PLACE_RE.exec(text)?.[1] ?? null;
}
