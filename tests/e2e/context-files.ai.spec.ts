import { type APIRequestContext, expect, test } from "@playwright/test";
import {
  askAgentDefinition,
  boundValueDefinition,
  OUR_PRICE,
  rivalPage,
  undercutVerdict,
} from "../fixtures/context-example";
import { model, site } from "./fixtures";

/**
 * Context files on the tracker page (docs/context-files.md), AI app: attach the person's price list with the keyboard (the
 * "Attach a file" button opens the picker), see it indexed; the rival's price moves 12.00 → 9.90, the judge (the
 * fixture model) reads the file's excerpt and cites it; the timeline shows "because: price-list.txt, … — ‘our price
 * is 10.00’" and the file shows it was cited. Deleting asks first and keeps the quote on the change. A file a locked
 * rule reads a value from: deleting it names the rule first, and the rule then decides with the value it read last,
 * marked on the definition (docs/context-files.md).
 */
const rival = rivalPage;
const definition = askAgentDefinition;

async function apiHeaders(request: APIRequestContext) {
  const res = await request.post("/api/trpc/apiToken.create", { data: { json: { name: "e2e context files" } } });
  expect(res.ok()).toBe(true);
  return { authorization: `Bearer ${(await res.json()).result.data.json.token}` };
}

test("attach a price list on the tracker page; the judge cites it on the timeline", async ({ page }) => {
  await site.setPage("/context/rival", { body: rival("12.00") });
  await model.setRecordings([
    {
      name: "judge reads our price list",
      match: { schemaName: "change_verdicts", prompt: OUR_PRICE },
      response: { json: undercutVerdict },
    },
    // The recorded change enhances the owner's feed in the background (docs/design.md §6); answered with nothing to add, so
    // the call succeeds and no failure backoff carries over to the feed specs that run after this one.
    {
      name: "feed enhancement: nothing to add",
      match: { schemaName: "feed_enhancement" },
      response: { json: { slotFills: [], syntheticItems: [], suppress: [], rankingHints: [] } },
    },
  ]);
  const headers = await apiHeaders(page.request);
  const created = await page.request.post("/api/v1/trackers", {
    headers,
    data: {
      decision: "Are we being undercut on Pro?",
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor("/context/rival") },
      definition,
    },
  });
  expect(created.status()).toBe(201);
  const id = (await created.json()).tracker.id as string;
  const refresh = async () =>
    (await (await page.request.post(`/api/v1/trackers/${id}/refresh`, { headers })).json()).run;
  expect((await refresh()).outcome).toBe("baseline");

  await page.goto(`/trackers/${id}`);
  const section = page.getByTestId("tracker-context-files");
  await expect(section.getByRole("heading", { name: "Context files" })).toBeVisible();
  await expect(section.getByText("No files yet.")).toBeVisible();

  // Keyboard: focus the button, Enter opens the file picker.
  const chooser = page.waitForEvent("filechooser");
  await section.getByRole("button", { name: "Attach a file" }).focus();
  await page.keyboard.press("Enter");
  await (await chooser).setFiles({
    name: "price-list.txt",
    mimeType: "text/plain",
    buffer: Buffer.from(`Price list 2026\n\nPro plan: ${OUR_PRICE} USD.\n`),
  });
  await expect(section.getByTestId("context-file-status")).toHaveText("price-list.txt attached and indexed.");
  const file = section.getByTestId("context-file");
  await expect(file).toHaveCount(1);
  await expect(file.getByTestId("context-file-state")).toHaveText("indexed");
  await expect(file).toContainText("Text · 51 B · 4 lines");
  await expect(file.getByTestId("context-file-cited")).toHaveText("Not cited yet");

  // An unsupported file: the server's message, nothing added.
  await section.getByTestId("context-file-input").setInputFiles({
    name: "photo.png",
    mimeType: "image/png",
    buffer: Buffer.from("not really a png"),
  });
  await expect(section.getByTestId("context-file-error")).toContainText("is not a supported file type");
  await expect(file).toHaveCount(1);

  await site.setPage("/context/rival", { body: rival("9.90") });
  expect((await refresh()).outcome).toBe("material");
  const citation = page.getByTestId("tracker-timeline").getByTestId("change-citation").first();
  await expect(citation).toHaveText(`because: price-list.txt, lines 1–3 — ‘${OUR_PRICE}’`);
  await expect(citation).toHaveAttribute("data-cited", "true");
  const prompts = (await model.requests()).filter((r) => r.summary.schemaName === "change_verdicts");
  expect(
    prompts
      .at(-1)
      ?.summary.messages.map((m) => m.text)
      .join("\n"),
  ).toContain(OUR_PRICE);

  await page.reload();
  await expect(page.getByTestId("context-file-cited")).toContainText("Cited by 1 change");

  // Delete asks first; the change keeps its quote.
  page.once("dialog", (dialog) => dialog.accept());
  await section.getByRole("button", { name: "Delete price-list.txt" }).click();
  await expect(section.getByText("No files yet.")).toBeVisible();
  await expect(page.getByTestId("change-citation").first()).toContainText(OUR_PRICE);
});

test("deleting a file a locked rule reads names the rule first; the rule keeps its value, marked", async ({ page }) => {
  await site.setPage("/context/bound", { body: rival("50.00") });
  await model.setRecordings([
    {
      name: "feed enhancement: nothing to add",
      match: { schemaName: "feed_enhancement" },
      response: { json: { slotFills: [], syntheticItems: [], suppress: [], rankingHints: [] } },
    },
  ]);
  const headers = await apiHeaders(page.request);
  const created = await page.request.post("/api/v1/trackers", {
    headers,
    data: {
      decision: "Are we being undercut on Pro?",
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor("/context/bound") },
      definition: boundValueDefinition({ label: "our price", file: "price-list.txt" }),
    },
  });
  expect(created.status()).toBe(201);
  const id = (await created.json()).tracker.id as string;
  const refresh = async () =>
    (await (await page.request.post(`/api/v1/trackers/${id}/refresh`, { headers })).json()).run;

  await page.goto(`/trackers/${id}`);
  const section = page.getByTestId("tracker-context-files");
  await section.getByTestId("context-file-input").setInputFiles({
    name: "price-list.txt",
    mimeType: "text/plain",
    buffer: Buffer.from("Price list 2026\nour price is 45.00\n"),
  });
  await expect(section.getByTestId("context-file-status")).toHaveText("price-list.txt attached and indexed.");
  expect((await refresh()).outcome).toBe("baseline");
  await site.setPage("/context/bound", { body: rival("44.00") });
  expect((await refresh()).outcome).toBe("material");
  await site.setPage("/context/bound", { body: rival("50.00") });
  expect((await refresh()).outcome).toBe("noise");

  await page.reload();
  await expect(section.getByTestId("context-file-used-by")).toHaveText("Read by a rule: our_price = 45");
  const definition = page.getByTestId("tracker-definition");
  await expect(definition.getByTestId("kept-context-value")).toHaveCount(0);

  // The confirmation names the rule before the file goes.
  const asked = new Promise<string>((resolve) =>
    page.once("dialog", (dialog) => {
      resolve(dialog.message());
      void dialog.accept();
    }),
  );
  await section.getByRole("button", { name: "Delete price-list.txt" }).click();
  const message = await asked;
  expect(message).toContain(
    "• price: material when it drops below our_price (“our price” in price-list.txt) — our_price is 45 here",
  );
  expect(message).toContain("they keep using these values, marked as kept, until you edit the tracker");
  await expect(section.getByText("No files yet.")).toBeVisible();

  // The definition shows the kept value at once, without a reload.
  const kept = definition.getByTestId("kept-context-value");
  await expect(kept).toContainText("price-list.txt removed on");
  await expect(kept).toContainText("; using $45.00 (our_price) until you edit the tracker");

  // The same crossing again is decided the same way, with the kept value; the reason says so.
  await site.setPage("/context/bound", { body: rival("44.00") });
  expect((await refresh()).outcome).toBe("material");
  await expect(page.getByTestId("tracker-timeline")).toContainText("kept: file removed");
});
