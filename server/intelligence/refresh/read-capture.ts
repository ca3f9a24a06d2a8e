import { canonicalJson } from "../../lib/canonical-json";
import type { TTrackerDefinition } from "../definition";
import type { TRawCapture } from "../fill";

/**
 * What the hot loop needs from any capability result: the stable document to hash, the raw data the
 * fill step reads, and the entity's identity. Both verbs return `document`; web.scrape adds html/json,
 * maps.place the normalized place.
 */
export type TCapture = {
  document: unknown;
  raw: TRawCapture;
  entityKey: string;
  /** For prompts: where the data came from. */
  source: string;
};

type TResults = {
  document?: { canonicalUrl?: string | null; mainText?: string } & Record<string, unknown>;
  url?: string;
  finalUrl?: string;
  html?: string;
  json?: unknown;
  place?: { placeId?: string } & Record<string, unknown>;
};

export function readCapture(
  capability: string,
  input: unknown,
  results: unknown,
  identity: TTrackerDefinition["identityRule"],
): TCapture {
  const r = (results ?? {}) as TResults;
  const document = r.document ?? r;
  const json = r.place ?? (r.json !== undefined ? r.json : document);
  const raw: TRawCapture = { json };
  if (r.html !== undefined) raw.html = r.html;
  if (typeof r.document?.mainText === "string") raw.text = r.document.mainText;

  const inputRecord = (input ?? {}) as Record<string, unknown>;
  let entityKey: string;
  switch (identity.kind) {
    case "place_id":
      entityKey = String(r.place?.placeId ?? inputRecord.placeId ?? canonicalJson(input));
      break;
    case "canonical_url":
      entityKey = r.document?.canonicalUrl || r.finalUrl || String(inputRecord.url ?? canonicalJson(input));
      break;
    default:
      entityKey = `${capability}:${canonicalJson(input)}`;
  }
  const source =
    capability === "maps.place" ? `Google Maps place ${entityKey}` : `web page ${r.finalUrl ?? inputRecord.url ?? ""}`;
  return { document, raw, entityKey, source };
}
