import { cleanUrl, getCapability, type TReadBack, type TSetMember } from "../../capabilities";
import { canonicalJson } from "../../lib/canonical-json";
import type { TTrackerDefinition } from "../definition";
import type { TRawCapture } from "../fill";

/**
 * What the hot loop needs from any capability result: the stable document to hash, the raw data the
 * fill step reads, and the entity's identity.
 */
export type TCapture = {
  document: unknown;
  raw: TRawCapture;
  entityKey: string;
  /** For prompts: where the data came from. */
  source: string;
  /** The document's hash with the run's salt, when the verb computed it beside the document (web.scrape). */
  contentHash?: string;
  /** A set's members, when the source lists many (docs/sets.md). */
  items?: TSetMember[];
};

/**
 * A stored result read back through its capability's descriptor (its `readBack`), then the entity's identity by the
 * definition's rule: the place id, the page's canonical address (else the tracked one), or the input itself.
 */
export function readCapture(
  capability: string,
  input: unknown,
  results: unknown,
  identity: TTrackerDefinition["identityRule"],
): TCapture {
  const back = getCapability(capability)?.readBack(input, results ?? {}) ?? genericReadBack(capability, results);
  const inputRecord = (input ?? {}) as Record<string, unknown>;
  let entityKey: string;
  switch (identity.kind) {
    case "place_id":
      entityKey = String(back.ids.placeId ?? inputRecord.placeId ?? canonicalJson(input));
      break;
    case "canonical_url": {
      // The page's canonical link, else the tracked URL — never the redirect target, which may carry a
      // session (docs/design.md §5); both without tracking and session parameters.
      const tracked = back.ids.url ? (cleanUrl(back.ids.url) ?? back.ids.url) : null;
      entityKey = back.ids.canonicalUrl || tracked || canonicalJson(input);
      break;
    }
    default:
      entityKey = `${capability}:${canonicalJson(input)}`;
  }
  return {
    document: back.document,
    raw: back.raw,
    entityKey,
    source: back.source,
    ...(back.contentHash !== undefined ? { contentHash: back.contentHash } : {}),
    ...(back.items ? { items: back.items } : {}),
  };
}

/** A capability no longer registered: its stored document as it is. */
function genericReadBack(capability: string, results: unknown): TReadBack {
  const r = (results ?? {}) as { document?: unknown };
  const document = r.document ?? r;
  return { document, raw: { json: document }, source: capability, ids: {} };
}
