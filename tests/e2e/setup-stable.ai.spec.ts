import { expect, type Page, test } from "@playwright/test";
import { model, site } from "./fixtures";
import { SETUP_PRICING_HTML } from "./setup-pages";
import { setupRecordings } from "./setup-recordings";
import { lastReply, watchTurn } from "./setup-watch";

/**
 * With the drafter on the fixture model: across three turns the previous reply and the draft card stay
 * on screen the whole time (sampled on every DOM change and every frame, until the network is idle
 * after the reply), and the model's reply reaches the page in several pieces, not at once.
 */

const EXPLAIN =
  "The identity rule says what is tracked: this page's canonical URL. If the page moves, the tracker follows the canonical address.";
const OFTEN = "Prices change most often here; plan names rarely. The 1% rule on Pro catches every real price move.";

test.beforeEach(async () => {
  await site.setPage("/setup/acme/pricing", { body: SETUP_PRICING_HTML });
  await model.setRecordings([
    ...setupRecordings(site.url),
    // Small pieces with a pause between them, so streaming is observable.
    {
      name: "stable-explain",
      match: { user: "What does the identity rule mean?" },
      response: { text: EXPLAIN, chunkSize: 6, chunkDelayMs: 40 },
    },
    {
      name: "stable-often",
      match: { user: "Which fields change most often?" },
      response: { text: OFTEN, chunkSize: 6, chunkDelayMs: 40 },
    },
  ]);
});

async function send(page: Page, text: string) {
  await page.getByTestId("setup-input").fill(text);
  await page.getByRole("button", { name: "Send" }).click();
}

test("AI: three turns — the previous reply and the draft card never leave the screen; replies stream in pieces", async ({
  page,
}) => {
  await page.goto("/trackers/new");
  await send(page, `Tell me if Acme's pricing page undercuts our $49 plan — ${site.urlFor("/setup/acme/pricing")}`);
  const card = page.getByTestId("draft-card");
  await expect(card).toHaveAttribute("data-state", "saved");
  await expect(page.getByTestId("chat-message").last()).toContainText("Does it look good?");

  const turns = [
    { message: "What does the identity rule mean?", reply: EXPLAIN, streamed: true },
    { message: "Which fields change most often?", reply: OFTEN, streamed: true },
    { message: "add a field for the annual price", reply: "Added annual_price", streamed: false },
  ];
  for (const turn of turns) {
    const previousReply = await lastReply(page);
    const watch = await watchTurn(page, { previousReply, message: turn.message });
    await send(page, turn.message);
    await expect(page.getByTestId("chat-message").last()).toContainText(turn.reply);
    await expect(card).toHaveAttribute("data-state", "saved");
    await page.waitForLoadState("networkidle");
    const seen = await watch.stop();

    expect(seen.sawTurnInFlight, "the sampler ran while the turn was in flight").toBe(true);
    expect(seen.samples).toBeGreaterThan(5);
    expect(seen.violations, `previous reply or draft card missing during “${turn.message}”`).toEqual([]);
    if (turn.streamed) {
      // More than one distinct partial text was on screen before the whole reply.
      const partial = seen.replyTexts.filter(
        (t) => t.length > 0 && t.length < turn.reply.length && turn.reply.startsWith(t),
      );
      expect(new Set(partial.map((t) => t.length)).size).toBeGreaterThan(1);
      expect(seen.replyTexts.at(-1)).toBe(turn.reply);
    }
  }
  await expect(card.locator('[data-field-name="annual_price"]')).toBeVisible();
  await expect(page.getByTestId("chat-message")).toHaveCount(8);

  // A reload resumes from the stored messages: the same conversation, the same draft.
  await page.reload();
  await expect(page.getByTestId("chat-message")).toHaveCount(8);
  await expect(page.getByTestId("chat-message").nth(3)).toHaveText(EXPLAIN);
  await expect(card.locator('[data-field-name="annual_price"]')).toBeVisible();
});
