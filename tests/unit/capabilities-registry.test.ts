import { describe, expect, it } from "vitest";
import { CAPABILITY_NAMES } from "@/contracts/capability-names";
import {
  capabilityConfigFromEnv,
  executeCapability,
  getCapability,
  listCapabilities,
  makeCapabilityConfig,
  parseCapabilityInput,
  routeByContentType,
  ZWebScrapeOutputSchema,
} from "@/server/capabilities";
import { parseEnv } from "@/server/env";
import { AppError } from "@/server/errors";
import { findTarget } from "@/server/intelligence/setup/find-target";

describe("capability registry", () => {
  it("lists web.scrape, maps.place, web.pdf, feed.items and maps.search with schemas — the names the API and the UI accept", () => {
    expect(listCapabilities().map((c) => c.name)).toEqual([
      "web.scrape",
      "maps.place",
      "web.pdf",
      "feed.items",
      "maps.search",
    ]);
    expect(listCapabilities().map((c) => c.name)).toEqual([...CAPABILITY_NAMES]);
    const scrape = getCapability("web.scrape");
    expect(scrape?.description).toMatch(/structured document/);
    expect(scrape?.outputSchema).toBe(ZWebScrapeOutputSchema);
    expect(getCapability("nope")).toBeUndefined();
  });

  it("returns a failed envelope for unknown verbs and invalid input", async () => {
    const ctx = { config: makeCapabilityConfig() };
    expect(await executeCapability("web.crawl", {}, ctx)).toEqual({
      status: "failed",
      error: {
        code: "UNKNOWN_CAPABILITY",
        message: 'Unknown capability "web.crawl". Available: web.scrape, maps.place, web.pdf, feed.items, maps.search.',
        retryable: false,
      },
    });
    const bad = await executeCapability("web.scrape", { link: "https://example.com" }, ctx);
    expect(bad.status).toBe("failed");
    expect(bad.error?.code).toBe("INVALID_INPUT");
    expect(bad.error?.message).toMatch(/^Invalid input for web\.scrape: url: /);
  });

  it("parseCapabilityInput returns parsed input or throws a BAD_REQUEST AppError", () => {
    expect(parseCapabilityInput("maps.place", { placeId: " places/ChIJabc " })).toEqual({ placeId: "ChIJabc" });
    expect(() => parseCapabilityInput("web.scrape", { url: "javascript:alert(1)" })).toThrow(AppError);
    try {
      parseCapabilityInput("web.scrape", { url: "javascript:alert(1)" });
    } catch (e) {
      expect((e as AppError).code).toBe("BAD_REQUEST");
      expect((e as AppError).message).toBe(
        "Invalid input for web.scrape: url: Only http:// and https:// pages can be watched.",
      );
    }
  });

  it("maps.place without a key fails without throwing", async () => {
    const env = await executeCapability("maps.place", { placeId: "ChIJabc" }, { config: makeCapabilityConfig() });
    expect(env.error?.code).toBe("NOT_CONFIGURED");
    expect(env.error?.message).toMatch(/set GOOGLE_MAPS_API_KEY/);
  });

  it("builds its config from the environment", () => {
    const env = parseEnv({
      FETCH_ALLOW_HOSTS: "Localhost:4020, fixture.test",
      FETCH_TIMEOUT_MS: "5000",
      FETCH_MAX_BYTES: "2048",
      GOOGLE_MAPS_API_KEY: "k",
      GOOGLE_PLACES_BASE_URL: "http://127.0.0.1:4030",
    });
    const config = capabilityConfigFromEnv(env);
    expect(config.fetch).toMatchObject({
      allowHosts: ["localhost:4020", "fixture.test"],
      timeoutMs: 5000,
      maxBytes: 2048,
      maxRedirects: 5,
    });
    expect(config.fetch.userAgent).toMatch(/^BellwetherBot\/0\.1/);
    expect(config.maps).toEqual({ apiKey: "k", baseUrl: "http://127.0.0.1:4030", timeoutMs: 5000 });
  });
});

describe("capability descriptors", () => {
  it("each finds its target in words, routes by media type and describes it; an address answering a PDF goes to web.pdf", () => {
    expect(findTarget("watch https://example.com/prices.pdf, please")).toEqual({
      capability: "web.scrape",
      input: { url: "https://example.com/prices.pdf" },
      label: "https://example.com/prices.pdf",
    });
    expect(findTarget("the café ChIJN1t_tDeuEmsRUsoyG83frY4")).toMatchObject({
      capability: "maps.place",
      label: "Google Maps place ChIJN1t_tDeuEmsRUsoyG83frY4",
    });
    expect(routeByContentType("web.scrape", { url: "https://example.com/x" }, "application/pdf")).toEqual({
      capability: "web.pdf",
      input: { url: "https://example.com/x" },
    });
    expect(routeByContentType("web.scrape", { url: "https://example.com/x" }, "image/png")).toBeNull();
    expect(routeByContentType("maps.place", { placeId: "ChIJN1t_tDeuEmsRUsoyG83frY4" }, "application/pdf")).toBeNull();
    for (const c of listCapabilities()) {
      expect(c.noun.length).toBeGreaterThan(0);
      expect(c.drafterHint.startsWith(c.name)).toBe(true);
    }
  });
});
