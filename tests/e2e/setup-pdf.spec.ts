import { expect, test } from "@playwright/test";
import { makePriceListPdf } from "../helpers/pdf-price-list";
import { site } from "./fixtures";
import { lockAndCheck } from "./setup-lock";

/**
 * A PDF as a source (docs/capabilities.md), as a person meets it in rules mode: the address of a supplier's price
 * list pasted in the chat is read as a PDF, the card drafts the named price and the document's lines, Lock; a new
 * price in the PDF is a material change on the tracker page after Refresh now.
 */

const LIST = { prices: { "Widget A": "$12.00", "Gadget Pro": "$120.00" }, paymentDays: 30 };

test("paste a PDF's address → drafted from its text → lock → a new price in the PDF is recorded", async ({ page }) => {
  const path = `/e2e-prices-${Date.now()}.pdf`;
  await site.setPage(path, { bodyBase64: await makePriceListPdf(LIST), contentType: "application/pdf" });
  await page.goto("/trackers/new");
  await page.getByTestId("setup-input").fill(`Is Acme raising the Gadget Pro price? ${site.urlFor(path)}`);
  await page.getByRole("button", { name: "Send" }).click();

  await expect(page.getByTestId("sample")).toContainText(`Sample read from ${site.urlFor(path)}`);
  const card = page.getByTestId("draft-card");
  await expect(card.locator('[data-field-name="gadget_pro_price"]')).toContainText("regex");
  await expect(card.locator('[data-field-name="text"]')).toBeVisible();
  await expect(page.getByTestId("draft-rules")).toContainText("gadget_pro_price: material on a 1% move or more");
  await lockAndCheck(page, "gadget_pro_price");
  await expect(page.getByText(site.urlFor(path)).first()).toBeVisible();

  await page.getByRole("button", { name: "Refresh now" }).click();
  await expect(page.getByTestId("refresh-outcome")).toBeVisible();
  await site.setPage(path, {
    bodyBase64: await makePriceListPdf({ ...LIST, prices: { ...LIST.prices, "Gadget Pro": "$99.00" } }),
    contentType: "application/pdf",
  });
  await page.getByRole("button", { name: "Refresh now" }).click();
  await expect(page.getByTestId("refresh-outcome")).toContainText("material: gadget_pro_price $120.00→$99.00");
  await expect(page.locator('[data-testid="timeline-entry"][data-materiality="material"]')).toHaveCount(1);
});
