import { DOCUMENT_FORMAT_VERSION, documentFormatOfHash, WEB_SCRAPE } from "../../capabilities";
import type { TTrackerDefinition } from "../definition";
import type { TLoadedTracker, TPageValidators } from "../tracker-store";

/**
 * Conditional requests for web pages (docs/refresh.md "Conditional requests"): a web.scrape refresh sends the last
 * good 200's ETag / Last-Modified, and a 304 is an unchanged page that is neither downloaded nor read. A 304 only says
 * "the body is the one those validators named", so validators are sent only while that body's read is still what the
 * pre-check would compare against: same address, same definition version (the hash's salt — a new locked version must
 * be read whole once), the same document format, and the entity's state still holding the hash that read left.
 */
export type TConditional = { etag: string | null; lastModified: string | null; entityId: string; contentHash: string };

type TScrapeInput = { url?: unknown; render?: unknown; listing?: unknown };

/** The validators this refresh may send, with the state a 304 stands for; null → a plain full fetch, as before. */
export function conditionalFor(
  tracker: TLoadedTracker,
  input: { def: TTrackerDefinition; version: number },
): TConditional | null {
  const stored = tracker.pageValidators;
  if (!stored || tracker.capability !== WEB_SCRAPE || input.def.set) return null;
  if (!stored.etag && !stored.lastModified) return null;
  const scrape = (tracker.capabilityInput ?? {}) as TScrapeInput;
  // A browser-rendered page (always) is read by the browser, and a listing has next pages a 304 says nothing about.
  if (scrape.listing !== undefined || scrape.render === "always" || scrape.url !== stored.url) return null;
  if (stored.version !== input.version || documentFormatOfHash(stored.contentHash) !== DOCUMENT_FORMAT_VERSION)
    return null;
  // A claim whose bundle may be stale could hold a hash a newer run replaced: read the page whole.
  if (tracker.stale) return null;
  const entity = tracker.entities.find((e) => e.id === stored.entityId);
  if (!entity || entity.contentHash !== stored.contentHash) return null;
  return { etag: stored.etag, lastModified: stored.lastModified, entityId: entity.id, contentHash: stored.contentHash };
}

/**
 * What the run's final write keeps after a 200: the new validators with the state they describe, or undefined when
 * nothing changes (no validators sent, a rendered page, or the same ones already kept — then the write adds nothing).
 */
export function validatorsToKeep(
  tracker: TLoadedTracker,
  input: {
    version: number;
    served: { etag: string | null; lastModified: string | null } | undefined;
    entityId: string;
    contentHash: string;
  },
): TPageValidators | undefined {
  const { served } = input;
  const url = (tracker.capabilityInput as TScrapeInput | null)?.url;
  if (!served || (!served.etag && !served.lastModified) || typeof url !== "string") return undefined;
  const next: TPageValidators = {
    etag: served.etag,
    lastModified: served.lastModified,
    url,
    version: input.version,
    entityId: input.entityId,
    contentHash: input.contentHash,
  };
  const kept = tracker.pageValidators;
  const same =
    kept !== null &&
    kept.etag === next.etag &&
    kept.lastModified === next.lastModified &&
    kept.url === next.url &&
    kept.version === next.version &&
    kept.entityId === next.entityId &&
    kept.contentHash === next.contentHash;
  return same ? undefined : next;
}
