import { expect, type Page, test } from "@playwright/test";
import { rivalPage } from "../fixtures/context-example";
import { createApiToken } from "./api-token";
import { site } from "./fixtures";

/**
 * Unfinished setups that explain themselves, and every chat turn answered for what it asked (docs/trackers.md,
 * "Unfinished setups"; docs/context-files.md, "While drafting"), AI off, at desktop and phone widths. The app's
 * database is shared with the other specs, so every assertion is scoped to this test's rows (a run tag in each title).
 */

const shop = (price: string) =>
  `<!doctype html><html><head><title>Gizmo shop</title></head><body><main><h1>Gizmo</h1>
<p>Price <span id="price">$${price}</span></p></main></body></html>`;

const definition = {
  fields: [
    {
      name: "price",
      type: "money",
      currency: "USD",
      description: "The gizmo's price",
      extractor: { kind: "css", selector: "#price" },
    },
  ],
  identityRule: { kind: "canonical_url" },
  materiality: { price: { kind: "numeric", relative: 0.01 } },
};

async function send(page: Page, text: string) {
  await page.getByTestId("setup-input").fill(text);
  await page.getByRole("button", { name: "Send" }).click();
}

/** A new conversation and its first message; resolves once the reply is in. */
async function startSetup(page: Page, message: string) {
  await page.goto("/trackers/new");
  await send(page, message);
  await expect(page.getByTestId("chat-message")).toHaveCount(2);
  await expect(page).toHaveURL(/\/trackers\/new\?session=/);
  return new URL(page.url()).searchParams.get("session") as string;
}

async function noHorizontalScroll(page: Page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
}

/** The titles of this run's rows in a list, in the list's order. */
const titlesIn = (rows: ReturnType<Page["getByTestId"]>) =>
  rows.getByTestId("unfinished-setup-title").allTextContents();

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]) {
  test.describe(`at ${viewport.width}×${viewport.height}`, () => {
    test.use({ viewport });

    test("one list of unfinished setups on /trackers and /trackers/new, an edit of a live tracker apart", async ({
      page,
    }) => {
      const tag = `${viewport.width}-${Date.now().toString(36)}`;
      const path = `/e2e-unfinished-${tag}`;
      await site.setPage(`${path}/a`, { body: shop("12.00") });
      await site.setPage(`${path}/b`, { body: shop("20.00") });

      // Two new setups bound to a page, one still without an address, and one whose address was refused.
      await startSetup(page, `Is gizmo ${tag} A back in stock? ${site.urlFor(`${path}/a`)}`);
      await expect(page.getByTestId("draft-card")).toBeVisible();
      await startSetup(page, `Tell me when gizmo ${tag} B gets cheaper at ${site.urlFor(`${path}/b`)}`);
      await expect(page.getByTestId("draft-card")).toBeVisible();
      await startSetup(page, `Is the venue ${tag} open on Sundays?`);
      await expect(page.getByTestId("chat-message").last()).toContainText("Which page or place should I watch");
      await startSetup(page, `Is the router ${tag} cheaper? http://10.0.0.1/router`);
      await expect(page.getByTestId("chat-message").last()).toContainText("10.0.0.1");

      // A live tracker (v1, made through the API) whose definition is being edited: its button locks v2 only.
      const token = await createApiToken(page.request, "e2e unfinished setups");
      await site.setPage(`${path}/live`, { body: shop("30.00") });
      const created = await page.request.post("/api/v1/trackers", {
        headers: { authorization: `Bearer ${token}` },
        data: {
          decision: `Is gizmo ${tag} live getting cheaper?`,
          capability: "web.scrape",
          capabilityInput: { url: site.urlFor(`${path}/live`) },
          definition,
        },
      });
      expect(created.status()).toBe(201);
      const liveId = (await created.json()).tracker.id as string;
      await page.goto(`/trackers/${liveId}`);
      await page.getByRole("link", { name: "Edit definition" }).click();
      await expect(page).toHaveURL(new RegExp(`/trackers/${liveId}/edit$`));
      await expect(page.getByTestId("lock-button")).toHaveText("Lock v2");

      // /trackers: each explains itself — what, where (or no address yet), when; the edit apart from new drafts.
      await page.goto("/trackers");
      const list = page.getByTestId("unfinished-setups");
      await expect(list.getByRole("heading", { name: /Unfinished setups/ })).toBeVisible();
      const mine = list.getByTestId("unfinished-setup").filter({ hasText: tag });
      await expect(mine).toHaveCount(4);
      const a = mine.filter({ hasText: `Is gizmo ${tag} A back in stock?` });
      await expect(a.getByTestId("unfinished-setup-address")).toContainText(`${path}/a`);
      await expect(a.getByTestId("unfinished-setup-kind")).toHaveText("New tracker");
      await expect(a.getByTestId("unfinished-setup-activity")).toContainText("Last activity");
      await expect(a.getByTestId("unfinished-setup-activity")).toContainText("discarded automatically in 14 days");
      const b = mine.filter({ hasText: `Tell me when gizmo ${tag} B gets cheaper` });
      await expect(b.getByTestId("unfinished-setup-address")).toContainText(`${path}/b`);
      const venue = mine.filter({ hasText: `Is the venue ${tag} open on Sundays?` });
      await expect(venue.getByTestId("unfinished-setup-address")).toHaveText("No address yet");
      await expect(mine.filter({ hasText: "router" })).toHaveCount(0);
      const edit = mine.filter({ hasText: `Editing v2 of Is gizmo ${tag} live getting cheaper?` });
      await expect(edit).toHaveAttribute("data-kind", "edit");
      await expect(edit.getByTestId("unfinished-setup-kind")).toHaveText("Edit of a live tracker (v1 runs meanwhile)");
      await expect(edit.getByTestId("unfinished-setup-address")).toContainText(`${path}/live`);
      await expect(edit.getByTestId("unfinished-setup-activity")).not.toContainText("discarded automatically");
      for (const title of await titlesIn(mine)) expect(title).not.toContain("http");
      // Newest activity first: the edit was opened last.
      expect((await titlesIn(mine))[0]).toBe(`Editing v2 of Is gizmo ${tag} live getting cheaper?`);
      await noHorizontalScroll(page);
      const onTrackers = await titlesIn(mine);

      // /trackers/new offers the very same list (the most recent first, the rest behind "Show all").
      await page.goto("/trackers/new");
      const offered = page.getByTestId("resume-setups").getByTestId("unfinished-setups");
      await offered.getByRole("button", { name: /^Show all \d+$/ }).click();
      const offeredMine = offered.getByTestId("unfinished-setup").filter({ hasText: tag });
      await expect(offeredMine).toHaveCount(4);
      expect(await titlesIn(offeredMine)).toEqual(onTrackers);
      await noHorizontalScroll(page);

      // Keyboard: discarding asks first, and focus follows the question; the refused one never shows up.
      const venueOffered = offeredMine.filter({ hasText: `Is the venue ${tag} open on Sundays?` });
      await venueOffered.getByRole("button", { name: /^Discard/ }).focus();
      await page.keyboard.press("Enter");
      await expect(venueOffered.getByRole("button", { name: "Discard setup" })).toBeFocused();
      await page.keyboard.press("Enter");
      await expect(venueOffered).toHaveCount(0);
      await expect(page.getByTestId("unfinished-setups-status")).toHaveText(
        `Discarded “Is the venue ${tag} open on Sundays?”.`,
      );

      // Continue editing opens the edit where it stopped, still locking v2 only.
      await offeredMine
        .getByRole("link", { name: `Continue editing “Editing v2 of Is gizmo ${tag} live getting cheaper?”` })
        .click();
      await expect(page).toHaveURL(new RegExp(`/trackers/${liveId}/edit$`));
      await expect(page.getByTestId("chat-message").first()).toContainText("Editing the definition of");
      await expect(page.getByTestId("lock-button")).toHaveText("Lock v2");
    });

    test("an edit sent right after a file was attached is applied in the same turn", async ({ page }) => {
      const tag = `${viewport.width}-${Date.now().toString(36)}`;
      await site.setPage(`/e2e-unfinished-${tag}/rival`, { body: rivalPage("12.00") });
      await startSetup(page, `Are we undercut on Pro ${tag}? ${site.urlFor(`/e2e-unfinished-${tag}/rival`)}`);
      const rules = page.getByTestId("draft-rules");
      await expect(rules).toContainText("price: material on a 1% move or more");

      // The message goes out before the card has taken the file in (its own call is held back here, as when the
      // person sends at once): the turn takes the file in itself and still applies the edit.
      const held: (() => Promise<void>)[] = [];
      const applyCall = (url: URL) => url.pathname.includes("setup.applyContextFiles");
      await page.route(applyCall, (route) => {
        held.push(() => route.continue());
      });
      const files = page.getByTestId("setup-context-files");
      const chooser = page.waitForEvent("filechooser");
      await files.getByRole("button", { name: "Attach a file" }).click();
      await (await chooser).setFiles({
        name: "price-list.txt",
        mimeType: "text/plain",
        buffer: Buffer.from("Price list 2026\nour price is 10.00 USD\n"),
      });
      await expect(files.getByTestId("context-file")).toHaveCount(1);

      await send(page, "only if it drops more than 10 %");
      await expect(page.getByTestId("chat-message")).toHaveCount(4);
      const answer = page.getByTestId("chat-message").last();
      await expect(answer).toContainText("so I added price: material when it drops below our_price");
      await expect(answer).toContainText("price: material on a 10% drop or more (rises are noise)");
      await expect(rules).toContainText("price: material on a 10% drop or more (rises are noise)");
      await expect(rules).toContainText("price: material when it drops below our_price");

      // The card's own call, let through now, finds nothing left to do and changes nothing.
      await expect.poll(() => held.length).toBeGreaterThan(0);
      for (const release of held) await release();
      await page.unroute(applyCall);
      await page.reload();
      await expect(rules).toContainText("price: material on a 10% drop or more (rises are noise)");
      await expect(rules).toContainText("price: material when it drops below our_price");
      await noHorizontalScroll(page);
    });
  });
}
