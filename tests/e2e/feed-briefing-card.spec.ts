import { expect, type Page, test } from "@playwright/test";
import { ACME_PRICING_DEFINITION, acmePricingPage } from "../fixtures/acme-pricing";
import { describeFindings, seriousAxeViolations } from "./a11y";
import { site } from "./fixtures";

/**
 * The briefing card in the rules app (docs/feed.md, "The briefing card"): a material change made here through the
 * public API is named on the feed's first card, dated today, in the rules' words (AI is off), at desktop and phone
 * widths, with no serious axe-core violation in light or dark.
 */

const tag = Date.now();
const PATH = `/e2e-briefing-card-${tag}`;
const DECISION = `Brief ${tag}: match Acme?`;

/** Today as the card titles it: the app has no zone in Settings here, so UTC ("Sunday 6 December"). */
const today = () =>
  new Intl.DateTimeFormat("en-GB", { weekday: "long", day: "numeric", month: "long", timeZone: "UTC" })
    .format(new Date())
    .replace(",", "");

async function makeMaterialChange(page: Page): Promise<void> {
  const token = await page.request.post("/api/trpc/apiToken.create", { data: { json: { name: `briefing ${tag}` } } });
  expect(token.ok()).toBe(true);
  const headers = { authorization: `Bearer ${(await token.json()).result.data.json.token}` };
  await site.setPage(PATH, { body: acmePricingPage("$100.00", "4.0") });
  const created = await page.request.post("/api/v1/trackers", {
    headers,
    data: {
      decision: DECISION,
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor(PATH) },
      definition: ACME_PRICING_DEFINITION,
    },
  });
  expect(created.status()).toBe(201);
  const id = (await created.json()).tracker.id as string;
  const refresh = async () =>
    (await (await page.request.post(`/api/v1/trackers/${id}/refresh`, { headers })).json()).run.outcome;
  expect(await refresh()).toBe("baseline");
  await site.setPage(PATH, { body: acmePricingPage("$90.00", "4.0") });
  expect(await refresh()).toBe("material");
}

test.describe.configure({ mode: "serial" });

test("a material change made here is named on the first card, dated today, in light and dark", async ({ page }) => {
  test.setTimeout(120_000);
  await makeMaterialChange(page);

  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    await page.setViewportSize(viewport);
    await page.emulateMedia({ colorScheme: "light" });
    await page.goto("/");
    const first = page.getByTestId("feed-card").first();
    await expect(first).toHaveAttribute("data-item-type", "briefing");
    await expect(first.getByRole("heading")).toHaveText(today());
    // AI is off: the rules' lines, naming the change (the decision shortened, the field and how much it moved).
    const text = first.getByTestId("briefing-text");
    await expect(text).toHaveAttribute("data-origin", "rules");
    await expect(text.locator("p")).toHaveCount(1);
    await expect(text).toContainText(/^\d+ material changes? since yesterday — /);
    await expect(text).toContainText(`“Brief ${tag}: match Acme?”: price −10%`);
    // Nothing scrolls sideways at phone width.
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);

    for (const colorScheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme });
      await expect
        .poll(() => page.evaluate(() => matchMedia("(prefers-color-scheme: dark)").matches))
        .toBe(colorScheme === "dark");
      const findings = await seriousAxeViolations(page);
      expect(findings, `${viewport.width} px, ${colorScheme}:\n${describeFindings(findings)}`).toEqual([]);
    }
  }
});
