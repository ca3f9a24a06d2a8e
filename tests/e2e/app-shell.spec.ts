import { expect, test } from "@playwright/test";

test.describe("app shell", () => {
  test("feed shows the AI status and tells a newcomer what to do first", async ({ page }) => {
    await page.goto("/");
    await expect(page.getByRole("heading", { level: 1, name: "Feed" })).toBeVisible();
    await expect(page.getByTestId("ai-status")).toHaveText("AI off — built-in rules");
    await expect(page.getByTestId("ai-status")).toHaveAttribute("data-mode", "rules");

    await page.getByRole("link", { name: "Create your first tracker" }).click();
    await expect(page).toHaveURL(/\/trackers\/new$/);
    // The setup chat, saying plainly that AI is off.
    await expect(page.getByPlaceholder("What should I watch, and why?")).toBeVisible();
    await expect(page.getByText(/AI is off \(rules mode\)/)).toBeVisible();
  });

  test("navigates Feed → Trackers → Settings with the keyboard", async ({ page }) => {
    await page.goto("/");
    const nav = page.getByRole("navigation", { name: "Main" });

    // The skip link is the first stop, then the brand, then the navigation.
    await page.keyboard.press("Tab");
    await expect(page.getByRole("link", { name: "Skip to content" })).toBeFocused();

    await nav.getByRole("link", { name: "Trackers" }).focus();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/\/trackers$/);
    await expect(page.getByRole("heading", { level: 1, name: "Trackers" })).toBeVisible();
    await expect(nav.getByRole("link", { name: "Trackers" })).toHaveAttribute("aria-current", "page");
    await expect(page.getByRole("heading", { name: "No trackers yet" })).toBeVisible();
    await expect(page.getByTestId("ai-status")).toHaveText("AI off — built-in rules");

    await nav.getByRole("link", { name: "Settings" }).focus();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/\/settings$/);
    await expect(page.getByRole("heading", { level: 1, name: "Settings" })).toBeVisible();
    await expect(page.getByTestId("ai-status")).toHaveText("AI off — built-in rules");

    await nav.getByRole("link", { name: "Feed" }).click();
    await expect(page).toHaveURL(/\/$/);
    await expect(nav.getByRole("link", { name: "Feed" })).toHaveAttribute("aria-current", "page");
  });

  test("at 390 px the header takes two rows: the brand and the navigation, then the inbox, AI status and sign-out", async ({
    page,
  }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/");
    const header = page.getByRole("banner");
    await expect(page.getByTestId("ai-status")).toHaveText("AI off — built-in rules");
    const box = await header.boundingBox();
    // Two rows of controls (three took ~125 px).
    expect(box?.height).toBeLessThanOrEqual(105);
    const top = async (name: string) =>
      (await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name }).boundingBox())?.y;
    const brand = (await header.getByRole("link", { name: "Bellwether" }).boundingBox())?.y ?? -1;
    for (const name of ["Feed", "Trackers", "Settings"])
      expect(Math.abs(((await top(name)) ?? 0) - brand)).toBeLessThan(12);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
  });

  test("the System page shows the configuration and no secrets", async ({ page }) => {
    await page.goto("/system");
    await expect(page.getByTestId("system-ai-mode")).toHaveText("Off — built-in rules");
    await expect(page.getByTestId("system-ai-model-judge")).toContainText("none — built-in rules");
    await expect(page.getByTestId("system-database-kind")).toHaveText("Embedded PostgreSQL (PGlite)");
    await expect(page.getByTestId("system-database-location")).not.toBeEmpty();

    const text = (await page.locator("main").textContent()) ?? "";
    expect(text).not.toMatch(/sk-[A-Za-z0-9]/);
    expect(text).not.toMatch(/api[_ -]?key\s*[:=]/i);
  });

  test("unknown pages get a not-found page inside the shell", async ({ page }) => {
    const response = await page.goto("/no-such-page");
    expect(response?.status()).toBe(404);
    await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
    await expect(page.getByTestId("ai-status")).toBeVisible();
  });

  test("a malformed %-escape in the path is a 400 that says so on pages, tRPC and the API, never a 500", async ({
    request,
  }) => {
    for (const path of ["/invite/%ZZ", "/trackers/%ED%A0%80", "/api/trpc/user.me%ZZ", "/api/v1/trackers/%ZZ"]) {
      const res = await request.get(path);
      expect(res.status(), path).toBe(400);
      expect(await res.text(), path).toMatch(/malformed %-escape/);
    }
  });

  test("robots.txt is a real robots file, also without a session: pages crawlable, the API and invitations not", async ({
    playwright,
    baseURL,
  }) => {
    const signedOut = await playwright.request.newContext({ baseURL });
    const res = await signedOut.get("/robots.txt", { maxRedirects: 0 });
    expect(res.status()).toBe(200);
    expect(res.headers()["content-type"]).toContain("text/plain");
    const text = await res.text();
    expect(text).toMatch(/^User-agent: \*$/im);
    // The pages may be crawled (without a session each answers the sign-in redirect); the API and secrets may not.
    expect(text).toMatch(/^Allow: \/$/m);
    expect(text).toMatch(/^Disallow: \/api\/$/m);
    expect(text).toMatch(/^Disallow: \/invite\/$/m);
    await signedOut.dispose();
  });

  test("the health endpoint reports the embedded database", async ({ request }) => {
    const res = await request.get("/api/health");
    expect(res.status()).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true, database: { kind: "embedded", ok: true } });
  });

  test("tRPC subscriptions stream over SSE through the production server", async ({ page }) => {
    await page.goto("/");
    const ids = await page.evaluate(async () => {
      const input = encodeURIComponent(JSON.stringify({ json: { intervalMs: 100 } }));
      const source = new EventSource(`/api/trpc/system.heartbeat?input=${input}`);
      const seen: string[] = [];
      await new Promise<void>((resolve, reject) => {
        source.onmessage = (event) => {
          seen.push(event.lastEventId);
          if (seen.length === 3) resolve();
        };
        setTimeout(() => reject(new Error(`only ${seen.length} events`)), 5_000);
      });
      source.close();
      return seen;
    });
    expect(ids).toEqual(["1", "2", "3"]);
  });
});
