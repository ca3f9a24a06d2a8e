import { type APIRequestContext, expect } from "@playwright/test";
import { cssPriceDefinition } from "../fixtures/price-definition";
import { site } from "./fixtures";

/** A fresh API token of the signed-in owner (for the specs that drive the public API), named after the spec. */
export async function createApiToken(request: APIRequestContext, name: string): Promise<string> {
  const res = await request.post("/api/trpc/apiToken.create", { data: { json: { name } } });
  expect(res.ok()).toBe(true);
  return (await res.json()).result.data.json.token;
}

/**
 * A fixture page at `path` showing a $12.00 price and a locked web.scrape tracker of it, created through the public
 * API with `token`; returns the tracker's id.
 */
export async function createPricePageTracker(request: APIRequestContext, token: string, path: string): Promise<string> {
  await site.setPage(path, { body: `<main><span id="price">$12.00</span></main>` });
  const created = await request.post("/api/v1/trackers", {
    headers: { authorization: `Bearer ${token}` },
    data: {
      decision: `Is the plan at ${path} getting cheaper?`,
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor(path) },
      definition: cssPriceDefinition(0.05),
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  return (await created.json()).tracker.id as string;
}
