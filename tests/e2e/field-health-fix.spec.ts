import { expect, test } from "@playwright/test";
import { cssPriceDefinition } from "../fixtures/price-definition";
import { createApiToken } from "./api-token";
import { site } from "./fixtures";

/**
 * A field that stopped reading, fixed on the page (docs/page-view.md): after a redesign the tracker page says it
 * needs attention; "Fix it on the page" opens the edit with the page read again, the field reading nothing and
 * Before showing where it was; a click on the price where it is now and Lock bring it back, with nothing new on the
 * timeline.
 */

const before = (price: string) =>
  `<!doctype html><html><body><main><span id="price">${price}</span></main></body></html>`;
const redesigned = (price: string) =>
  `<!doctype html><html><body><main><h1>Our new look</h1><section><h2>Pro</h2><p class="cost">${price}</p></section></main></body></html>`;

test.use({ viewport: { width: 1280, height: 900 } });

test("needs attention → Fix it on the page → point at the price → lock → it reads again", async ({ page }) => {
  const path = `/e2e-fix-${Date.now()}`;
  await site.setPage(path, { body: before("$10.00") });
  const auth = { authorization: `Bearer ${await createApiToken(page.request, "e2e fix on page")}` };
  const created = await page.request.post("/api/v1/trackers", {
    headers: auth,
    data: {
      decision: "Is Acme's Pro price moving?",
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor(path) },
      definition: cssPriceDefinition(0.05),
    },
  });
  expect(created.status()).toBe(201);
  const id = (await created.json()).tracker.id as string;
  const refresh = async () => (await page.request.post(`/api/v1/trackers/${id}/refresh`, { headers: auth })).json();
  expect((await refresh()).run.outcome).toBe("baseline");
  await site.setPage(path, { body: redesigned("$10.00") });
  for (let run = 0; run < 3; run++) await refresh();

  await page.goto(`/trackers/${id}`);
  await expect(page.getByTestId("tracker-needs-attention")).toContainText("price has read nothing for 3 runs");
  await page.getByTestId("fix-on-page").click();

  const view = page.getByTestId("page-view");
  // The whole answer (were the copy refused, this line would say why).
  await expect(view.getByTestId("page-view-status")).toContainText(/I read .* again\. Fields that read nothing now/);
  await expect(view.getByTestId("page-view-field")).toContainText("price reads nothing on this page");
  await expect(view.getByTestId("page-view-proposal")).toContainText(
    "What it read before, “$10.00”, is now the price under the heading “Pro”",
  );
  const frame = page.frameLocator('[data-testid="page-view-frame"]');
  await view.getByRole("button", { name: "Before" }).click();
  await expect(frame.getByText("$10.00")).toHaveCSS("outline-style", "solid");
  await view.getByRole("button", { name: "Now" }).click();
  await expect(frame.getByText("Our new look")).toBeVisible();
  await frame.getByText("$10.00").click();
  await expect(view.getByTestId("page-view-field-select")).toHaveValue("price");
  await view.getByTestId("page-view-use").click();
  await expect(view.getByTestId("page-view-status")).toContainText(
    "Now price reads the price under the heading “Pro”: “$10.00”",
  );
  await expect(view.getByTestId("page-view-field")).toContainText("price reads 10 USD");
  await page.getByTestId("lock-button").click();
  await expect(page).toHaveURL(new RegExp(`/trackers/${id}(\\?.*)?$`));

  await page.getByRole("button", { name: "Refresh now" }).click();
  await expect(page.getByTestId("refresh-outcome")).toBeVisible();
  await page.reload();
  await expect(page.getByTestId("tracker-needs-attention")).toHaveCount(0);
  await expect(page.getByTestId("timeline-entry")).toHaveCount(1);
});
