import { type APIRequestContext, expect, type Page, test } from "@playwright/test";
import { createApiToken } from "./api-token";
import { site } from "./fixtures";

/**
 * The trackers list (docs/trackers.md, "The trackers list"), at desktop and phone widths: unfinished setups listed apart with clean
 * titles, Resume opening the setup chat where it stopped, Discard (confirmed) removing one; active trackers showing
 * what their source says now and their last material change, formatted; bulk archive; a linked view (`?show=…&q=…`)
 * paged with "Load more", searched from the form, and read without JavaScript. The app's database is shared
 * with the other specs, so every assertion is scoped to this test's own rows (a run tag in every title).
 */

const shop = (price: string, units: string) =>
  `<!doctype html><html><head><title>Gizmo shop</title></head><body><main><h1>Gizmo</h1>
<p>Price <span id="price">$${price}</span></p><p><span id="units">${units}</span> left</p></main></body></html>`;

const definition = {
  fields: [
    {
      name: "price",
      type: "money",
      currency: "USD",
      description: "The gizmo's price",
      extractor: { kind: "css", selector: "#price" },
    },
    {
      name: "units_left",
      type: "integer",
      description: "Units in stock",
      unit: "units",
      extractor: { kind: "css", selector: "#units" },
    },
  ],
  identityRule: { kind: "canonical_url" },
  materiality: { price: { kind: "numeric", relative: 0.01 }, units_left: { kind: "numeric", absolute: 5 } },
};

const createToken = (request: APIRequestContext) => createApiToken(request, "e2e trackers list");

/** A draft the way people make one: the setup chat reads the page and drafts; nothing is locked. */
async function startSetup(page: Page, message: string) {
  await page.goto("/trackers/new");
  await page.getByTestId("setup-input").fill(message);
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.getByTestId("draft-card")).toBeVisible();
  await expect(page).toHaveURL(/\/trackers\/new\?session=/);
  return new URL(page.url()).searchParams.get("session") as string;
}

/** An active tracker made through the public API, with a baseline and one material price cut. */
async function activeTracker(page: Page, auth: Record<string, string>, decision: string, path: string) {
  await site.setPage(path, { body: shop("39.50", "1200") });
  const created = await page.request.post("/api/v1/trackers", {
    headers: auth,
    data: { decision, capability: "web.scrape", capabilityInput: { url: site.urlFor(path) }, definition },
  });
  expect(created.status()).toBe(201);
  const id = (await created.json()).tracker.id as string;
  expect(
    (await (await page.request.post(`/api/v1/trackers/${id}/refresh`, { headers: auth })).json()).run.outcome,
  ).toBe("baseline");
  await site.setPage(path, { body: shop("35.00", "1200") });
  const cut = await page.request.post(`/api/v1/trackers/${id}/refresh`, { headers: auth });
  expect((await cut.json()).run.outcome).toBe("material");
  return id;
}

async function noHorizontalScroll(page: Page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
}

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]) {
  test.describe(`at ${viewport.width}×${viewport.height}`, () => {
    test.use({ viewport });

    test("drafts apart with Resume and Discard; trackers with current values and last change; bulk archive", async ({
      page,
    }) => {
      const tag = `${viewport.width}-${Date.now().toString(36)}`;
      const path = `/e2e-list-${tag}`;
      await site.setPage(`${path}/draft`, { body: shop("12.00", "3") });

      // Two unfinished setups, each from a first message with the address in it.
      const resumeSession = await startSetup(page, `is gizmo ${tag} back in stock? ${site.urlFor(`${path}/draft`)}`);
      await startSetup(page, `Tell me when gizmo ${tag} gets cheaper at ${site.urlFor(`${path}/draft`)}`);

      const token = await createToken(page.request);
      const auth = { authorization: `Bearer ${token}` };
      const first = await activeTracker(page, auth, `Is gizmo ${tag} A getting cheaper?`, `${path}/a`);
      const second = await activeTracker(page, auth, `Is gizmo ${tag} B getting cheaper?`, `${path}/b`);

      await page.goto("/trackers");
      await expect(page.getByRole("heading", { level: 1, name: "Trackers" })).toBeVisible();

      // Drafts are listed apart, titled from the decision — never the raw message with its address.
      const drafts = page.getByTestId("unfinished-setups");
      await expect(drafts.getByRole("heading", { name: /Unfinished setups/ })).toBeVisible();
      const mine = drafts.getByTestId("unfinished-setup").filter({ hasText: tag });
      await expect(mine).toHaveCount(2);
      await expect(mine.filter({ hasText: `Is gizmo ${tag} back in stock?` })).toHaveCount(1);
      await expect(mine.filter({ hasText: `Tell me when gizmo ${tag} gets cheaper` })).toHaveCount(1);
      for (const title of await mine.getByTestId("unfinished-setup-title").allTextContents())
        expect(title).not.toContain("http");
      await expect(mine.first()).toContainText("discarded automatically in 14 days unless resumed");
      await expect(page.getByTestId("tracker-row").filter({ hasText: "back in stock" })).toHaveCount(0);

      // Active trackers: what the source says now and the last material change, formatted for people.
      const rowA = page.locator(`[data-testid="tracker-row"][data-tracker-id="${first}"]`);
      await expect(rowA.getByRole("link", { name: `Is gizmo ${tag} A getting cheaper?` })).toHaveAttribute(
        "href",
        `/trackers/${first}`,
      );
      await expect(rowA.locator('[data-field-name="price"]')).toHaveText("Price$35.00");
      await expect(rowA.locator('[data-field-name="units_left"]')).toHaveText("Units left1,200 units");
      await expect(rowA.getByTestId("tracker-last-change")).toContainText("Last material change");
      await expect(rowA.getByTestId("tracker-last-change")).toContainText("Price $39.50 → $35.00 (−11%)");
      await noHorizontalScroll(page);

      // Resume opens the setup chat where it stopped: the conversation and the draft card.
      await mine
        .filter({ hasText: "back in stock" })
        .getByRole("link", { name: `Resume “Is gizmo ${tag} back in stock?”` })
        .click();
      await expect(page).toHaveURL(new RegExp(`/trackers/new\\?session=${resumeSession}$`));
      await expect(page.getByTestId("chat-message")).toHaveCount(2);
      await expect(page.getByTestId("chat-message").first()).toContainText(`is gizmo ${tag} back in stock?`);
      await expect(page.getByTestId("draft-card")).toBeVisible();

      // Discard asks first; "Keep" keeps it, "Discard setup" removes it (and only it).
      await page.goto("/trackers");
      const doomed = mine.filter({ hasText: "gets cheaper" });
      await doomed.getByRole("button", { name: /^Discard/ }).click();
      await doomed.getByRole("button", { name: "Keep" }).click();
      await expect(doomed).toHaveCount(1);
      await doomed.getByRole("button", { name: /^Discard/ }).click();
      await expect(doomed.getByRole("button", { name: "Discard setup" })).toBeFocused();
      await doomed.getByRole("button", { name: "Discard setup" }).click();
      await expect(doomed).toHaveCount(0);
      await expect(mine).toHaveCount(1);
      await expect(page.getByTestId("unfinished-setups-status")).toContainText(
        `Discarded “Tell me when gizmo ${tag} gets cheaper”.`,
      );
      await page.reload();
      await expect(mine).toHaveCount(1);

      // Bulk archive: select both active trackers (one by keyboard), confirm, and they leave the current list.
      await page.getByRole("checkbox", { name: `Select “Is gizmo ${tag} A getting cheaper?”` }).check();
      await page.getByRole("checkbox", { name: `Select “Is gizmo ${tag} B getting cheaper?”` }).focus();
      await page.keyboard.press("Space");
      const bulk = page.getByTestId("bulk-actions");
      await expect(bulk).toContainText("2 selected");
      await bulk.getByRole("button", { name: "Archive…" }).click();
      await expect(bulk.getByRole("button", { name: "Archive 2" })).toBeFocused();
      await bulk.getByRole("button", { name: "Archive 2" }).click();
      await expect(page.getByRole("status").filter({ hasText: "archived" })).toHaveText("2 trackers archived.");
      await expect(page.locator(`[data-tracker-id="${first}"], [data-tracker-id="${second}"]`)).toHaveCount(0);
      await page.getByLabel("Show").selectOption("archived");
      await expect(page).toHaveURL(/\/trackers\?show=archived$/);
      for (const id of [first, second]) {
        await expect(
          page.locator(`[data-testid="tracker-row"][data-tracker-id="${id}"]`).getByTestId("tracker-status"),
        ).toHaveText("archived");
      }
      await noHorizontalScroll(page);
    });
  });
}

test("a view by its address: search and filter in the URL, 50 a page with Load more, and without JavaScript", async ({
  page,
  browser,
}) => {
  const tag = `paged${Date.now().toString(36)}`;
  const auth = { authorization: `Bearer ${await createToken(page.request)}` };
  const ids: string[] = [];
  // 52 trackers that match the search (made through the API, no refresh needed), and one that does not.
  for (let i = 0; i < 53; i++) {
    const created = await page.request.post("/api/v1/trackers", {
      headers: auth,
      data: {
        decision: i === 52 ? `Unrelated ${Date.now()}` : `Is ${tag} item ${i} cheaper?`,
        capability: "web.scrape",
        // The unrelated one's address must not name the tag either: the search reads addresses too.
        capabilityInput: { url: site.urlFor(i === 52 ? `/e2e-other-${Date.now()}` : `/e2e-${tag}/${i}`) },
        definition,
      },
    });
    expect(created.status()).toBe(201);
    ids.push((await created.json()).tracker.id as string);
  }
  const paused = await page.request.put(`/api/v1/trackers/${ids[3]}/status`, {
    headers: auth,
    data: { status: "paused" },
  });
  expect(paused.status()).toBe(200);

  const rows = page.getByTestId("tracker-row");
  await page.goto(`/trackers?show=all&q=${tag}`);
  await expect(page.getByRole("searchbox", { name: "Search" })).toHaveValue(tag);
  await expect(rows).toHaveCount(50);
  await expect(page.getByTestId("trackers-shown-count")).toHaveText("Showing 50 of 52");
  // The newest first: item 51 heads the list.
  await expect(rows.first()).toContainText(`Is ${tag} item 51 cheaper?`);
  await page.getByRole("link", { name: "Load more" }).click();
  await expect(rows).toHaveCount(52);
  await expect(page.getByTestId("trackers-shown-count")).toHaveText("Showing 52 of 52");
  await expect(page.getByRole("link", { name: "Load more" })).toHaveCount(0);
  await expect(page).toHaveURL(new RegExp(`/trackers\\?show=all&q=${tag}$`));

  // The filter narrows the same search, and its count is in the choice.
  await page.getByLabel("Show").selectOption("paused");
  await expect(page).toHaveURL(new RegExp(`/trackers\\?show=paused&q=${tag}$`));
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText(`Is ${tag} item 3 cheaper?`);
  await expect(page.getByLabel("Show").locator("option:checked")).toHaveText("Paused (1)");

  // The search form, by keyboard: type and press Enter; nothing matches → the empty state says so.
  const search = page.getByRole("searchbox", { name: "Search" });
  await search.fill(`${tag}-nothing`);
  await search.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/trackers\\?show=paused&q=${tag}-nothing$`));
  await expect(page.getByTestId("trackers-no-match")).toContainText(`No tracker matches “${tag}-nothing”`);
  await page.goBack();
  await expect(rows).toHaveCount(1);

  // Without JavaScript: the server renders the linked view; Load more is a link to the next page.
  const context = await browser.newContext({
    baseURL: test.info().project.use.baseURL,
    javaScriptEnabled: false,
    storageState: await page.context().storageState(),
  });
  const plain = await context.newPage();
  await plain.goto(`/trackers?show=all&q=${tag}`);
  await expect(plain.getByTestId("tracker-row")).toHaveCount(50);
  await expect(plain.getByTestId("trackers-shown-count")).toHaveText("Showing 50 of 52");
  await plain.getByRole("link", { name: "Load more" }).click();
  await expect(plain).toHaveURL(/after=/);
  await expect(plain.getByTestId("tracker-row")).toHaveCount(2);
  await expect(plain.getByTestId("tracker-row").last()).toContainText(`Is ${tag} item 0 cheaper?`);
  // The form submits to the same address without JavaScript.
  await plain.getByRole("searchbox", { name: "Search" }).fill(`${tag} item 7 `);
  await plain.getByRole("button", { name: "Search" }).click();
  await expect(plain.getByTestId("tracker-row")).toHaveCount(1);
  await context.close();
});
