import { type APIRequestContext, expect } from "@playwright/test";

/** A fresh API token of the signed-in owner (for the specs that drive the public API), named after the spec. */
export async function createApiToken(request: APIRequestContext, name: string): Promise<string> {
  const res = await request.post("/api/trpc/apiToken.create", { data: { json: { name } } });
  expect(res.ok()).toBe(true);
  return (await res.json()).result.data.json.token;
}
