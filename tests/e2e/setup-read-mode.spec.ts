import { expect, type Page, test } from "@playwright/test";
import { site } from "./fixtures";

/**
 * Choosing the browser read in setup (rules mode, no browser on the e2e server): a page whose price a script fills
 * in is offered the browser read, and the card's read-mode radio group — reached and switched by keyboard — re-reads
 * the page and updates the card, at 1280 and 390 px.
 */

const PAGE = `<!doctype html><html><head><title>Acme Trail Runner</title></head><body><main><h1>Acme Trail Runner</h1>
<p>Price: <span class="price" id="product-price"></span></p>
<p>The Acme Trail Runner is a lightweight shoe for long days on rough ground, with a grippy outsole and a roomy toe box.</p>
<p>Its upper is a breathable recycled mesh that dries quickly after a river crossing and keeps grit out on dusty descents.</p>
<p>A rock plate under the forefoot protects against sharp stones without taking away the feel of the trail underfoot.</p>
</main><script>document.getElementById("product-price").textContent = "$129.00";</script></body></html>`;

test.beforeEach(async () => {
  await site.setPage("/setup/read-mode/runner", { body: PAGE });
});

async function send(page: Page, text: string) {
  await page.getByTestId("setup-input").fill(text);
  await page.getByRole("button", { name: "Send" }).click();
}

for (const width of [1280, 390]) {
  test(`read mode at ${width} px: offered for a script-filled price, switched by keyboard, the card follows`, async ({
    page,
  }) => {
    await page.setViewportSize({ width, height: 900 });
    await page.goto("/trackers/new");
    await send(page, `Tell me when the Trail Runner price changes — ${site.urlFor("/setup/read-mode/runner")}`);
    await expect(page.getByTestId("chat-message").last()).toContainText(
      "The price on this page is filled in by script; read it with a browser (render: always) to watch it",
    );

    const control = page.getByTestId("read-mode");
    await expect(control).toBeVisible();
    await expect(control).toHaveAttribute("data-mode", "auto");
    await expect(page.getByTestId("read-mode-browser")).toContainText("No browser is configured on this server");
    await expect(control.getByRole("radio", { name: /Always in a browser/ })).toBeDisabled();
    const auto = control.getByRole("radio", { name: /Automatic/ });
    await expect(auto).toBeChecked();

    // Keyboard: focus the group's checked radio, arrow to the next enabled one (never) — that switches it.
    await auto.focus();
    await page.keyboard.press("ArrowDown");
    await expect(control).toHaveAttribute("data-mode", "never");
    await expect(page.getByTestId("draft-reading")).toContainText("never in a browser (render: never)");
    await expect(page.getByTestId("setup-notice")).toContainText("Now read with a plain fetch only (render: never)");
    await expect(control.getByRole("radio", { name: /Never in a browser/ })).toBeFocused();

    // The control fits a phone's width: nothing of it lies outside the viewport.
    const box = await control.boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= width).toBe(true);

    // Back to auto by keyboard, and the mode survives a reload (it is the tracker's own).
    await page.keyboard.press("ArrowUp");
    await expect(control).toHaveAttribute("data-mode", "auto");
    await expect(page.getByTestId("draft-reading")).toContainText("render: auto");
    await page.keyboard.press("ArrowDown");
    await expect(control).toHaveAttribute("data-mode", "never");
    await page.reload();
    await expect(page.getByTestId("read-mode")).toHaveAttribute("data-mode", "never");
  });
}
