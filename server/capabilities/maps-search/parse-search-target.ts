import { z } from "zod";
import { MAPS_SEARCH_LIMITS, type TMapsSearchInput, ZLatLngSchema } from "../../../contracts/maps-search";

/**
 * A person's words for a Google Maps search ("coffee near 51.52,-0.08 within 2 km", "bakeries within 500 m of
 * 51.5072,-0.1276", "vegan restaurants in Shoreditch") split into what to look for and where. A named area stays in
 * the text: Google's text search reads "in Shoreditch" itself, so only coordinates and a radius are taken out.
 */
export const ZSearchTargetSchema = z.object({
  text: z.string(),
  center: ZLatLngSchema.nullable(),
  radiusMeters: z.number().nullable(),
});
export type TSearchTarget = z.infer<typeof ZSearchTargetSchema>;
export type TParseSearchTargetResult = { ok: true; target: TSearchTarget } | { ok: false; problem: string };

const NUM = String.raw`[-+]?\d+(?:\.\d+)?`;
// "51.52,-0.08", "51.52, -0.08" or "51.52 -0.08" after a preposition; bare pairs must be "51.52,-0.08"-like.
const COORD = String.raw`(${NUM})\s*(?:,\s*|\s+)(${NUM})`;
const UNIT = "km|kilomet(?:re|er)s?|m|met(?:re|er)s?|mi|miles?";
const RADIUS = String.raw`(\d+(?:\.\d+)?)\s*(${UNIT})`;

const WITHIN_OF = new RegExp(
  String.raw`\bwithin\s+(?:a\s+)?${RADIUS}(?:\s+radius)?\s+(?:of|from|around)\s+${COORD}(?![\w.])`,
  "i",
);
const WITHIN = new RegExp(String.raw`\bwithin\s+(?:a\s+)?${RADIUS}(?:\s+radius)?\b`, "i");
const NEAR = new RegExp(String.raw`\b(?:near|around|close\s+to|by|at|of|from)\s+${COORD}(?![\w.])`, "i");
const BARE = /(?<![\w.])([-+]?\d+\.\d+)\s*,\s*([-+]?\d+\.\d+)(?![\w.])/;

function toMeters(amount: string, unit: string): number {
  const u = unit.toLowerCase();
  const per = u.startsWith("mi") ? 1609.344 : u === "m" || u.startsWith("met") ? 1 : 1000;
  return Math.round(Number(amount) * per);
}

function checkCenter(latRaw: string, lngRaw: string): { lat: number; lng: number } | string {
  const lat = Number(latRaw);
  const lng = Number(lngRaw);
  const swapped = Math.abs(lng) <= 90 && Math.abs(lat) <= 180;
  const hint = swapped ? ` Did you mean ${lngRaw},${latRaw}? Give the latitude first.` : "";
  if (Math.abs(lat) > 90) return `${latRaw} is not a latitude: it must be between -90 and 90.${hint}`;
  if (Math.abs(lng) > 180) return `${lngRaw} is not a longitude: it must be between -180 and 180.`;
  return { lat, lng };
}

function checkRadius(meters: number, said: string): string | null {
  if (meters > MAPS_SEARCH_LIMITS.maxRadiusMeters) {
    return `A radius of ${said} is too large: Google Maps searches at most 50 km around a point.`;
  }
  if (meters < MAPS_SEARCH_LIMITS.minRadiusMeters) return `A radius of ${said} is too small: use at least 1 m.`;
  return null;
}

export function parseSearchTarget(words: string): TParseSearchTargetResult {
  let rest = words.replace(/\s+/g, " ").trim();
  let center: TSearchTarget["center"] = null;
  let radiusMeters: number | null = null;
  let radiusSaid = "";
  const take = (m: RegExpExecArray) => {
    rest = `${rest.slice(0, m.index)} ${rest.slice(m.index + m[0].length)}`;
  };

  let coords: [string, string] | null = null;
  const withinOf = WITHIN_OF.exec(rest);
  if (withinOf) {
    radiusSaid = `${withinOf[1]} ${withinOf[2]}`;
    radiusMeters = toMeters(withinOf[1] ?? "", withinOf[2] ?? "");
    coords = [withinOf[3] ?? "", withinOf[4] ?? ""];
    take(withinOf);
  } else {
    const within = WITHIN.exec(rest);
    if (within) {
      radiusSaid = `${within[1]} ${within[2]}`;
      radiusMeters = toMeters(within[1] ?? "", within[2] ?? "");
      take(within);
    }
    const near = NEAR.exec(rest) ?? BARE.exec(rest);
    if (near) {
      coords = [near[1] ?? "", near[2] ?? ""];
      take(near);
    }
  }

  if (coords) {
    const c = checkCenter(...coords);
    if (typeof c === "string") return { ok: false, problem: c };
    center = c;
  }
  if (radiusMeters !== null) {
    const bad = checkRadius(radiusMeters, radiusSaid);
    if (bad) return { ok: false, problem: bad };
    if (!center) {
      return {
        ok: false,
        problem: `"within ${radiusSaid}" needs a point to search around: add "near <latitude>,<longitude>", e.g. near 51.52,-0.08.`,
      };
    }
  }

  const text = rest
    .replace(/\s+/g, " ")
    .replace(/^[\s,;:.-]+|[\s,;:.-]+$/g, "")
    .trim();
  if (!text) {
    return {
      ok: false,
      problem: 'Say what to look for as well as where, e.g. "coffee near 51.52,-0.08 within 2 km".',
    };
  }
  return { ok: true, target: { text, center, radiusMeters } };
}

/** The capability input for a parsed target (the schema fills in maxResults). */
export function searchTargetToInput(target: TSearchTarget, maxResults?: number): TMapsSearchInput {
  return {
    query: target.text,
    ...(target.center ? { center: target.center } : {}),
    ...(target.radiusMeters !== null ? { radiusMeters: target.radiusMeters } : {}),
    maxResults: maxResults ?? MAPS_SEARCH_LIMITS.defaultMaxResults,
  };
}
