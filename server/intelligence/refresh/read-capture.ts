import { cleanUrl, type TCssAnswer } from "../../capabilities";
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
  /** The document's hash with the run's salt, when the verb computed it beside the document (web.scrape). */
  contentHash?: string;
};

type TResults = {
  document?: { canonicalUrl?: string | null; mainText?: string } & Record<string, unknown>;
  url?: string;
  finalUrl?: string;
  html?: string;
  json?: unknown;
  css?: Record<string, TCssAnswer>;
  contentHash?: string;
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
  if (r.css !== undefined) raw.css = r.css;
  if (typeof r.document?.mainText === "string") raw.text = r.document.mainText;

  const inputRecord = (input ?? {}) as Record<string, unknown>;
  let entityKey: string;
  switch (identity.kind) {
    case "place_id":
      entityKey = String(r.place?.placeId ?? inputRecord.placeId ?? canonicalJson(input));
      break;
    case "canonical_url": {
      // The page's canonical link, else the tracked URL — never the redirect target, which may carry a
      // session (docs/design.md §5); both without tracking and session parameters.
      const tracked = typeof inputRecord.url === "string" ? (cleanUrl(inputRecord.url) ?? inputRecord.url) : null;
      entityKey = r.document?.canonicalUrl || tracked || canonicalJson(input);
      break;
    }
    default:
      entityKey = `${capability}:${canonicalJson(input)}`;
  }
  const source =
    capability === "maps.place" ? `Google Maps place ${entityKey}` : `web page ${r.finalUrl ?? inputRecord.url ?? ""}`;
  return { document, raw, entityKey, source, ...(r.contentHash !== undefined ? { contentHash: r.contentHash } : {}) };
}
