import { expect, test } from "@playwright/test";
import { site } from "./fixtures";

/** Settings → Usage this month (docs/design.md §9): a tracker's refreshes show in its row, and the budget line. */
const page1 = (price: string) => `<!doctype html><html><head><title>Usage shop</title></head><body><main>
<p>Price <span id="price">${price}</span></p></main></body></html>`;

test("Settings shows this month's refreshes per tracker and the AI budget", async ({ page }) => {
  const path = `/e2e-usage-${Date.now()}`;
  await site.setPage(path, { body: page1("10") });
  const tokenRes = await page.request.post("/api/trpc/apiToken.create", { data: { json: { name: "e2e usage" } } });
  expect(tokenRes.ok()).toBe(true);
  const auth = { authorization: `Bearer ${(await tokenRes.json()).result.data.json.token}` };
  const decision = `Is the usage shop moving its price? ${Date.now()}`;
  const created = await page.request.post("/api/v1/trackers", {
    headers: auth,
    data: {
      decision,
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor(path) },
      definition: {
        fields: [
          { name: "price", type: "number", description: "Price", extractor: { kind: "css", selector: "#price" } },
        ],
        identityRule: { kind: "canonical_url" },
        materiality: { price: { kind: "numeric", relative: 0.05 } },
      },
    },
  });
  expect(created.status()).toBe(201);
  const id = (await created.json()).tracker.id as string;
  for (const price of ["10", "12", "12"]) {
    await site.setPage(path, { body: page1(price) });
    expect((await page.request.post(`/api/v1/trackers/${id}/refresh`, { headers: auth })).status()).toBe(201);
  }

  await page.goto("/settings");
  const section = page.getByRole("region", { name: "Usage this month" });
  await expect(section.getByTestId("usage-budget")).toContainText("AI budget: unlimited");
  const row = section.getByTestId("usage-tracker-row").filter({ hasText: decision });
  await expect(row).toHaveCount(1);
  // Refreshes, model calls (rules mode: none), tokens.
  await expect(row.locator("td")).toHaveText(["3", "0", "0"]);
  await expect(row.getByRole("link", { name: decision })).toHaveAttribute("href", `/trackers/${id}`);
});
