import fs from "node:fs";
import { expect, type Page, test } from "@playwright/test";
import { site } from "./fixtures";

/**
 * Settings (docs/trackers.md, "Settings and System") at desktop and phone widths: find the feed's location by name with the keyboard
 * (Open-Meteo geocoding, served by the fixture site through GEOCODING_BASE_URL), pick it, save, and find it again
 * after a reload; a refused manual latitude is explained next to its field; server details live on the System page.
 */

const LISBON = JSON.parse(fs.readFileSync("tests/fixtures/open-meteo/geocoding-lisbon.json", "utf8"));
const EMPTY = JSON.parse(fs.readFileSync("tests/fixtures/open-meteo/geocoding-empty.json", "utf8"));
const searchPath = (name: string) => `/v1/search?name=${encodeURIComponent(name)}&count=5&language=en&format=json`;

const VIEWPORTS = [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
] as const;

async function openSettings(page: Page) {
  await page.goto("/settings");
  await expect(page.getByRole("heading", { level: 1, name: "Settings" })).toBeVisible();
}

async function noHorizontalScroll(page: Page) {
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBeLessThanOrEqual(0);
}

test.beforeEach(async () => {
  // Any other name finds nothing; Lisbon finds five places.
  await site.setJson("/v1/search", EMPTY);
  await site.setJson(searchPath("Lisbon"), LISBON);
});

for (const vp of VIEWPORTS) {
  test.describe(`at ${vp.width}×${vp.height}`, () => {
    test.use({ viewport: { width: vp.width, height: vp.height } });

    test(`finds a place by name with the keyboard, saves it and keeps it after a reload (${vp.name})`, async ({
      page,
    }) => {
      // Desktop picks the first answer, the phone the second, so each run proves its own pick was stored.
      const expected =
        vp.name === "desktop"
          ? { index: 0, label: "Lisbon, Portugal", latitude: "38.71667", longitude: "-9.13333", tz: "Europe/Lisbon" }
          : {
              index: 1,
              label: "Lisbon, Indiana, United States",
              latitude: "41.59393",
              longitude: "-85.96628",
              tz: "America/Indiana/Indianapolis",
            };
      await openSettings(page);
      const combobox = page.getByRole("combobox", { name: "Find a place" });
      const save = page.getByRole("button", { name: "Save feed settings" });
      // Where the Save button sits on the page (not in the viewport, which scrolls to the focused input).
      const pageTop = () => save.evaluate((el) => el.getBoundingClientRect().top + window.scrollY);
      const saveTop = await pageTop();

      await combobox.focus();
      await combobox.pressSequentially("Lisbon", { delay: 20 });
      const options = page.getByRole("listbox", { name: "Places" }).getByRole("option");
      await expect(options).toHaveCount(5);
      await expect(options.first()).toContainText("Lisbon, Portugal");
      await expect(combobox).toHaveAttribute("aria-expanded", "true");
      // The list floats over the form: nothing below it moved.
      expect(await pageTop()).toBe(saveTop);
      await noHorizontalScroll(page);

      // ↓ enters the list, ↑ wraps to the end, Escape closes it and keeps the text.
      await page.keyboard.press("ArrowDown");
      await expect(options.nth(0)).toHaveAttribute("aria-selected", "true");
      await page.keyboard.press("ArrowUp");
      await expect(options.nth(4)).toHaveAttribute("aria-selected", "true");
      await page.keyboard.press("Escape");
      await expect(combobox).toHaveAttribute("aria-expanded", "false");
      await expect(combobox).toHaveValue("Lisbon");

      // ↓ reopens at the first place; move to the expected one and pick it with Enter.
      await page.keyboard.press("ArrowDown");
      await expect(options.nth(0)).toHaveAttribute("aria-selected", "true");
      for (let i = 0; i < expected.index; i++) await page.keyboard.press("ArrowDown");
      const activeId = await options.nth(expected.index).getAttribute("id");
      await expect(combobox).toHaveAttribute("aria-activedescendant", activeId ?? "");
      await page.keyboard.press("Enter");
      await expect(combobox).toHaveAttribute("aria-expanded", "false");
      await expect(combobox).toHaveValue(expected.label);
      await expect(page.getByTestId("current-place")).toHaveAttribute("data-place", expected.label);
      await expect(page.getByLabel("Time zone")).toHaveValue(expected.tz);
      // Enter picked, it did not submit the form.
      await expect(page.getByRole("status").filter({ hasText: "Saved." })).toHaveCount(0);

      await save.click();
      await expect(page.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();

      await page.reload();
      await expect(page.getByTestId("current-place")).toHaveAttribute("data-place", expected.label);
      await expect(page.getByTestId("current-place")).toContainText(expected.label);
      await page.getByText("Enter coordinates manually").click();
      await expect(page.getByLabel("Latitude")).toHaveValue(expected.latitude);
      await expect(page.getByLabel("Longitude")).toHaveValue(expected.longitude);
      await expect(page.getByLabel("Place name")).toHaveValue(expected.label);
      await expect(page.getByLabel("Time zone")).toHaveValue(expected.tz);
      await noHorizontalScroll(page);
    });

    test(`says when nothing is found and when the geocoder fails (${vp.name})`, async ({ page }) => {
      await site.setPage(searchPath("Atlantis"), { status: 503, body: "down" });
      await openSettings(page);
      const combobox = page.getByRole("combobox", { name: "Find a place" });

      await combobox.fill("Qwxzv");
      await expect(page.getByTestId("place-search-message")).toHaveText("No places found for “Qwxzv”.");
      await expect(combobox).toHaveAttribute("aria-expanded", "false");

      await combobox.fill("Atlantis");
      await expect(page.getByTestId("place-search-error")).toHaveText(
        /^Place search is unavailable: the geocoding service answered HTTP 503\. .*enter the coordinates by hand\.$/,
      );
      await noHorizontalScroll(page);
    });

    test(`explains a refused manual latitude next to the field and saves nothing (${vp.name})`, async ({ page }) => {
      await openSettings(page);
      await page.getByText("Enter coordinates manually").click();
      const latitude = page.getByLabel("Latitude");
      const before = await latitude.inputValue();
      await latitude.fill("200");
      await page.getByLabel("Longitude").fill("10");
      await page.getByRole("button", { name: "Save feed settings" }).click();

      await expect(latitude).toHaveAttribute("aria-invalid", "true");
      await expect(latitude).toHaveAccessibleDescription("Latitude must be between -90 and 90.");
      await expect(page.getByLabel("Longitude")).not.toHaveAttribute("aria-invalid", "true");
      await expect(page.getByRole("alert").filter({ hasText: "Not saved" })).toContainText("one field needs fixing");
      // Right under its field: starts within a few pixels below the input and overlaps it horizontally.
      const error = page.getByText("Latitude must be between -90 and 90.");
      const [inputBox, errorBox] = [await latitude.boundingBox(), await error.boundingBox()];
      if (!inputBox || !errorBox) throw new Error("latitude field or its error is not laid out");
      expect(errorBox.y - (inputBox.y + inputBox.height)).toBeGreaterThanOrEqual(0);
      expect(errorBox.y - (inputBox.y + inputBox.height)).toBeLessThan(24);
      expect(errorBox.x).toBeLessThan(inputBox.x + inputBox.width);
      expect(errorBox.x + errorBox.width).toBeGreaterThan(inputBox.x);
      await noHorizontalScroll(page);

      // Editing the field clears its error; nothing was stored.
      await latitude.fill("45");
      await expect(latitude).not.toHaveAttribute("aria-invalid", "true");
      await page.reload();
      await page.getByText("Enter coordinates manually").click();
      await expect(page.getByLabel("Latitude")).toHaveValue(before);
    });

    test(`Settings holds the person's preferences; the System page the server's details (${vp.name})`, async ({
      page,
    }) => {
      await openSettings(page);
      const main = page.locator("main");
      await expect(main.getByRole("heading", { name: "Feed", exact: true })).toBeVisible();
      for (const name of ["AI model", "Database", "About"]) {
        await expect(main.getByRole("heading", { name, exact: true })).toHaveCount(0);
      }
      await expect(main).not.toContainText("PGlite");
      await expect(main).not.toContainText(".test-data");

      await main.getByRole("link", { name: "System" }).click();
      await expect(page).toHaveURL(/\/system$/);
      await expect(page.getByRole("heading", { level: 1, name: "System" })).toBeVisible();
      await expect(page.getByTestId("system-ai-mode")).toHaveText("Off — built-in rules");
      await expect(page.getByTestId("system-database-kind")).toHaveText("Embedded PostgreSQL (PGlite)");
      // The owner sees where the data lives.
      await expect(page.getByTestId("system-database-location")).toContainText(".test-data");
      await expect(page.getByTestId("system-runtime")).toContainText(/^Node v\d+/);
      await expect(page.getByTestId("system-version")).toHaveText(/^\d+\.\d+\.\d+/);
      await expect(page.getByRole("textbox")).toHaveCount(0);
      await noHorizontalScroll(page);
    });
  });
}
