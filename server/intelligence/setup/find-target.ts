export type TSetupTarget =
  | { capability: "web.scrape"; input: { url: string }; label: string }
  | { capability: "maps.place"; input: { placeId: string }; label: string };

const URL_RE = /\bhttps?:\/\/[^\s<>"'`]+/i;
// Google place ids start with ChIJ (most) or Gh/Ei; also accept an explicit "place id: …".
const PLACE_ID_RE = /\b(ChIJ[0-9A-Za-z_-]{10,})\b/;
const EXPLICIT_PLACE_RE = /\bplace[\s_-]?id\s*[:=]?\s*([0-9A-Za-z_-]{10,})\b/i;

/**
 * Deterministic binding (rules mode, and a hint for the agent): the first http(s) URL in the message,
 * else a Google Maps place id. Trailing punctuation that is not part of a URL is dropped. null → ask.
 */
export function findTarget(text: string): TSetupTarget | null {
  const url = URL_RE.exec(text)?.[0]?.replace(/[.,;:!?)\]}]+$/, "");
  if (url) return { capability: "web.scrape", input: { url }, label: url };
  const placeId = PLACE_ID_RE.exec(text)?.[1] ?? EXPLICIT_PLACE_RE.exec(text)?.[1];
  if (placeId) return { capability: "maps.place", input: { placeId }, label: `Google Maps place ${placeId}` };
  return null;
}
