import { type APIRequestContext, expect, type Page, test } from "@playwright/test";
import { createApiToken } from "./api-token";
import { site } from "./fixtures";

/**
 * Replay over history (docs/replay.md), rules mode: a tracker with a few stored captures (the fixture site stepped through
 * prices, refreshed through the public API), then Edit definition → a stricter threshold on the card → Run replay:
 * the side-by-side shows what v1 recorded beside what the draft v2 would have, with the counts sentence and the
 * removed and changed entries labelled in words. Then lock v2 and take the optional "re-judge stored history".
 */
const shop = (price: string) =>
  `<!doctype html><html><head><title>Acme pricing</title></head><body><main><h1>Pricing</h1>
<p>Pro plan <span id="price">${price}</span> per month</p></main></body></html>`;

const definition = {
  fields: [
    {
      name: "price",
      type: "number",
      description: "Pro plan monthly price",
      extractor: { kind: "css", selector: "#price" },
    },
  ],
  identityRule: { kind: "canonical_url" },
  materiality: { price: { kind: "numeric", relative: 0.05 } },
};

const createToken = (request: APIRequestContext) => createApiToken(request, "e2e replay");

/** A tracker whose history under v1 (5 %) is: 100 baseline · 90 material · 88 noise · 80 material. */
async function trackerWithHistory(page: Page, path: string): Promise<string> {
  await site.setPage(path, { body: shop("100") });
  const auth = { authorization: `Bearer ${await createToken(page.request)}` };
  const created = await page.request.post("/api/v1/trackers", {
    headers: auth,
    data: {
      decision: "Is Acme undercutting our Pro plan?",
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor(path) },
      definition,
    },
  });
  expect(created.status()).toBe(201);
  const id = (await created.json()).tracker.id as string;
  const outcomes: string[] = [];
  for (const price of ["100", "90", "88", "80"]) {
    await site.setPage(path, { body: shop(price) });
    const run = await page.request.post(`/api/v1/trackers/${id}/refresh`, { headers: auth });
    outcomes.push((await run.json()).run.outcome);
  }
  expect(outcomes).toEqual(["baseline", "material", "noise", "material"]);
  return id;
}

/** On the edit page's card: price becomes material only on a 20 % move. */
async function stricterThreshold(page: Page) {
  const card = page.getByTestId("draft-card");
  const price = card.locator('[data-field-name="price"]');
  await price.getByRole("button", { name: "Edit price" }).click();
  const form = price.getByTestId("field-edit-form");
  await form.getByLabel("Percentage (%)").fill("20");
  await form.getByLabel("Percentage (%)").press("Enter");
  await expect(form).toHaveCount(0);
  await expect(page.getByTestId("draft-rules")).toContainText("price: material on a 20% move or more");
}

test("edit a definition, replay it over the stored history, read the side by side; lock and re-judge", async ({
  page,
}) => {
  const id = await trackerWithHistory(page, `/e2e-replay-${Date.now()}`);

  await page.goto(`/trackers/${id}/edit`);
  const panel = page.getByTestId("replay-panel");
  await expect(panel.getByRole("heading", { name: "Replay over history" })).toBeVisible();
  await expect(panel.getByTestId("replay-plan-sentence")).toHaveText("4 stored captures; no model call needed.");
  // Rules mode: no budget to set.
  await expect(panel.getByTestId("replay-budget")).toHaveCount(0);

  await stricterThreshold(page);

  // Run (from the keyboard). Under 20 % of the $100 baseline, 90 and 88 are noise and 80 (−20 %) is material:
  // v1's first cut is removed, its second changes (from 90 → 80 to 100 → 80).
  await panel.getByTestId("replay-run").focus();
  await page.keyboard.press("Enter");
  await expect(panel.getByTestId("replay-summary")).toContainText(
    "Would have recorded 1 material change instead of 2; would have missed: price 100→90",
  );
  await expect(panel.getByTestId("replay-counts")).toContainText("0 added, 1 removed, 1 changed");
  const removed = panel.locator('[data-testid="replay-row"][data-diff="removed"]');
  await expect(removed).toHaveCount(1);
  await expect(removed.getByTestId("replay-diff-label")).toHaveText("Removed by the draft");
  await expect(removed.getByTestId("replay-recorded")).toContainText("100.0 → 90.0");
  await expect(removed.getByTestId("replay-replayed")).toContainText("Would not be recorded");
  const changed = panel.locator('[data-testid="replay-row"][data-diff="changed"]');
  await expect(changed.getByTestId("replay-diff-label")).toHaveText("Changed");
  await expect(changed.getByTestId("replay-recorded")).toContainText("90.0 → 80.0");
  await expect(changed.getByTestId("replay-replayed")).toContainText("100.0 → 80.0");
  await expect(panel.getByText("Recorded (v1)").first()).toBeVisible();
  await expect(panel.getByText("Draft would record (v2)").first()).toBeVisible();

  // On a phone the columns stack, each cell naming its column.
  await page.setViewportSize({ width: 390, height: 844 });
  const recorded = removed.getByTestId("replay-recorded");
  const replayed = removed.getByTestId("replay-replayed");
  const [a, b] = [await recorded.boundingBox(), await replayed.boundingBox()];
  expect(a && b && b.y >= a.y + a.height - 1).toBe(true);
  await expect(recorded.getByText("Recorded (v1)")).toBeVisible();
  await page.setViewportSize({ width: 1280, height: 800 });

  // Lock v2: the tracker page offers — only offers — to re-judge the stored history under it.
  await page.getByTestId("lock-button").click();
  await expect(page).toHaveURL(new RegExp(`/trackers/${id}\\?locked=2$`));
  const offer = page.getByTestId("rejudge-offer");
  await expect(offer).toContainText("the original entries stay as the history of v1");
  await offer.getByTestId("rejudge-button").click();
  await expect(offer.getByTestId("rejudge-summary")).not.toBeEmpty();
});

test("a tracker with no stored capture says so and offers no run", async ({ page }) => {
  const path = `/e2e-replay-empty-${Date.now()}`;
  await site.setPage(path, { body: shop("100") });
  const auth = { authorization: `Bearer ${await createToken(page.request)}` };
  const created = await page.request.post("/api/v1/trackers", {
    headers: auth,
    data: {
      decision: "Is Acme undercutting us?",
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor(path) },
      definition,
    },
  });
  const id = (await created.json()).tracker.id as string;
  await page.goto(`/trackers/${id}/edit`);
  const panel = page.getByTestId("replay-panel");
  await expect(panel.getByTestId("replay-empty")).toHaveText(
    "No stored history yet — captures are stored from the first changed refresh on.",
  );
  await expect(panel.getByTestId("replay-run")).toBeDisabled();
});
