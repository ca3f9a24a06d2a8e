import { describe, expect, it } from "vitest";
import { DOCUMENT_FORMAT_VERSION } from "@/server/capabilities";
import { parseDefinition, type TTrackerDefinition } from "@/server/intelligence/definition";
import { conditionalFor, validatorsToKeep } from "@/server/intelligence/refresh/page-validators";
import type { TLoadedTracker, TPageValidators } from "@/server/intelligence/tracker-store";
import { cssPriceDefinition } from "../fixtures/price-definition";

/** When a refresh may send validators (docs/refresh.md "Conditional requests"): only when a 304 can stand for its read. */

const parsed = parseDefinition(cssPriceDefinition(0.05));
if (!parsed.ok) throw new Error(parsed.errors.join("; "));
const def: TTrackerDefinition = parsed.definition;
const URL_ = "https://shop.example/widget";
const HASH = `d${DOCUMENT_FORMAT_VERSION}:abc`;
const stored: TPageValidators = {
  etag: '"v1"',
  lastModified: null,
  url: URL_,
  version: 1,
  entityId: "e1",
  contentHash: HASH,
};

function tracker(over: Partial<TLoadedTracker> = {}): TLoadedTracker {
  return {
    id: "t1",
    userId: "u1",
    decision: "?",
    capability: "web.scrape",
    capabilityInput: { url: URL_, render: "auto" },
    status: "active",
    lockedVersion: 1,
    scheduleMinutes: 60,
    consecutiveFailures: 0,
    fieldHealth: null,
    pageValidators: stored,
    definition: "{}",
    entities: [{ id: "e1", entityKey: URL_, contentHash: HASH, fields: {} }],
    leasedAt: new Date(0),
    leaseToken: "r:x",
    stale: false,
    ...over,
  };
}

describe("conditionalFor", () => {
  it("sends the kept validators when the state still holds the read they describe", () => {
    expect(conditionalFor(tracker(), { def, version: 1 })).toEqual({
      etag: '"v1"',
      lastModified: null,
      entityId: "e1",
      contentHash: HASH,
    });
  });

  it.each<[string, Partial<TLoadedTracker>, number?]>([
    ["none kept", { pageValidators: null }],
    ["another definition version", {}, 2],
    ["a browser-rendered page", { capabilityInput: { url: URL_, render: "always" } }],
    ["a listing", { capabilityInput: { url: URL_, listing: {} } }],
    ["another address", { capabilityInput: { url: `${URL_}?v=2` } }],
    ["another verb", { capability: "web.pdf" }],
    ["a stale claim", { stale: true }],
    ["the state moved on", { entities: [{ id: "e1", entityKey: URL_, contentHash: "d3:other", fields: {} }] }],
    ["the entity is gone", { entities: [] }],
    ["an older document format", { pageValidators: { ...stored, contentHash: "abc" } }],
    ["no validator at all", { pageValidators: { ...stored, etag: null } }],
  ])("sends nothing: %s", (_, over, version = 1) => {
    expect(conditionalFor(tracker(over), { def, version })).toBeNull();
  });

  it("sends nothing for a set", () => {
    expect(conditionalFor(tracker(), { def: { ...def, set: {} } as TTrackerDefinition, version: 1 })).toBeNull();
  });
});

describe("validatorsToKeep", () => {
  const input = { version: 1, entityId: "e1", contentHash: HASH };
  it("keeps new validators with the state they describe; the same ones again add nothing to the write", () => {
    expect(
      validatorsToKeep(tracker({ pageValidators: null }), { ...input, served: { etag: '"v1"', lastModified: null } }),
    ).toEqual(stored);
    expect(validatorsToKeep(tracker(), { ...input, served: { etag: '"v1"', lastModified: null } })).toBeUndefined();
    expect(validatorsToKeep(tracker(), { ...input, served: { etag: '"v2"', lastModified: null } })).toMatchObject({
      etag: '"v2"',
    });
  });
  it("keeps nothing when the page sent none (a rendered page sends none)", () => {
    expect(validatorsToKeep(tracker(), { ...input, served: undefined })).toBeUndefined();
    expect(validatorsToKeep(tracker(), { ...input, served: { etag: null, lastModified: null } })).toBeUndefined();
  });
});
