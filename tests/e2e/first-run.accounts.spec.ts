import { type Browser, expect, type Page, test } from "@playwright/test";
import { site } from "./fixtures";

/**
 * Accounts end to end, on an app that starts at first run (no account): every page leads to "Create the owner
 * account"; the owner signs out and in again; a second person joins by invite link, sees an empty feed, and
 * gets the not-found page at the owner's tracker URL. Serial: each step builds on the app state of the last.
 */
test.describe.configure({ mode: "serial" });

const OWNER = { name: "Olive Owner", email: "olive@example.test", password: "olive owner passphrase" };
const GUEST = { name: "Sam Guest", email: "sam@example.test", password: "sam guest passphrase" };
let ownerTrackerId = "";
let inviteLink = "";

async function signIn(page: Page, who: { email: string; password: string }) {
  await page.getByLabel("Email").fill(who.email);
  await page.getByLabel("Password").fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

async function newPage(browser: Browser): Promise<Page> {
  return (await browser.newContext()).newPage();
}

test("first run: every page leads to creating the owner account, at 390 px and by keyboard", async ({ browser }) => {
  const page = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
  for (const path of ["/", "/trackers", "/settings", "/sign-in"]) {
    await page.goto(path);
    await expect(page).toHaveURL(/\/setup-owner$/);
  }
  await expect(page.getByRole("heading", { name: "Create the owner account" })).toBeVisible();
  // Nothing but the brand in the header until someone is signed in.
  await expect(page.getByRole("navigation", { name: "Main" })).toHaveCount(0);

  // Keyboard only: the name field has focus; Tab moves through the form; Enter submits.
  await expect(page.getByLabel("Your name")).toBeFocused();
  await page.keyboard.type(OWNER.name);
  await page.keyboard.press("Tab");
  await page.keyboard.type(OWNER.email);
  await page.keyboard.press("Tab");
  await page.keyboard.type("too short");
  await page.keyboard.press("Tab");
  await page.keyboard.type("too short");
  await page.keyboard.press("Enter");
  await expect(page.locator("#new-account-error")).toHaveText("Use at least 10 characters for the password.");

  await page.getByLabel("Password", { exact: true }).fill(OWNER.password);
  await page.getByLabel("Password again").fill(OWNER.password);
  await page.getByLabel("Password again").press("Enter");
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole("heading", { level: 1, name: "Feed" })).toBeVisible();
  await expect(page.getByTestId("signed-in-as")).toHaveText(OWNER.name);

  // Fits the narrow screen: nothing scrolls sideways.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);

  // The owner exists now: the first-run page sends people to sign in.
  const stranger = await newPage(browser);
  await stranger.goto("/setup-owner");
  await expect(stranger).toHaveURL(/\/sign-in$/);
});

test("the owner signs out, cannot reach pages, and signs in again (wrong password first)", async ({ browser }) => {
  const page = await newPage(browser);
  await page.goto("/sign-in");
  await signIn(page, OWNER);
  await expect(page).toHaveURL(/\/$/);

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
  await page.goto("/trackers");
  await expect(page).toHaveURL(/\/sign-in\?next=%2Ftrackers$/);
  const api = await page.request.get("/api/trpc/tracker.list");
  expect(api.status()).toBe(401);

  await signIn(page, { email: OWNER.email, password: "not the password" });
  await expect(page.locator("#sign-in-error")).toHaveText("Wrong email or password.");
  await signIn(page, OWNER);
  await expect(page).toHaveURL(/\/trackers$/);
  await expect(page.getByRole("heading", { level: 1, name: "Trackers" })).toBeVisible();
});

test("the owner's tracker shows in the owner's feed; the owner creates an invite link", async ({ browser }) => {
  const page = await newPage(browser);
  await page.goto("/sign-in");
  await signIn(page, OWNER);
  await expect(page).toHaveURL(/\/$/);

  const origin = { origin: new URL(page.url()).origin };
  const tokenRes = await page.request.post("/api/trpc/apiToken.create", {
    headers: origin,
    data: { json: { name: "accounts e2e" } },
  });
  expect(tokenRes.status()).toBe(200);
  const auth = { authorization: `Bearer ${(await tokenRes.json()).result.data.json.token}` };
  const path = `/accounts-${Date.now()}`;
  const shop = (price: string) => `<html><body><p>Pro <span id="price">${price}</span></p></body></html>`;
  await site.setPage(path, { body: shop("100") });
  const created = await page.request.post("/api/v1/trackers", {
    headers: auth,
    data: {
      decision: "Is Acme undercutting Olive?",
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor(path) },
      definition: {
        fields: [
          { name: "price", type: "number", description: "Price", extractor: { kind: "css", selector: "#price" } },
        ],
        identityRule: { kind: "canonical_url" },
        materiality: { price: { kind: "numeric", relative: 0.05 } },
      },
    },
  });
  expect(created.status()).toBe(201);
  ownerTrackerId = (await created.json()).tracker.id;
  await page.request.post(`/api/v1/trackers/${ownerTrackerId}/refresh`, { headers: auth });
  await site.setPage(path, { body: shop("80") });
  const cut = await page.request.post(`/api/v1/trackers/${ownerTrackerId}/refresh`, { headers: auth });
  expect((await cut.json()).run.outcome).toBe("material");

  await page.goto("/");
  await expect(page.getByTestId("feed-card").filter({ hasText: "Is Acme undercutting Olive?" }).first()).toBeVisible();

  await page.goto("/settings");
  await page.getByLabel("For (optional)").fill("Sam");
  await page.getByRole("button", { name: "Create invite link" }).click();
  inviteLink = (await page.getByTestId("invite-link").textContent()) ?? "";
  expect(inviteLink).toMatch(/\/invite\/[A-Za-z0-9_-]{40,}$/);
  await expect(page.getByTestId("invite-row").first()).toContainText("Sam");
});

test("an invited person signs up by link, sees an empty feed, and gets not-found at the owner's tracker", async ({
  browser,
}) => {
  const page = await newPage(browser);
  await page.goto(inviteLink);
  await expect(page.getByRole("heading", { name: "Accept your invitation" })).toBeVisible();
  await page.getByLabel("Your name").fill(GUEST.name);
  await page.getByLabel("Email").fill(GUEST.email);
  await page.getByLabel("Password", { exact: true }).fill(GUEST.password);
  await page.getByLabel("Password again").fill(GUEST.password);
  await page.getByRole("button", { name: "Create my account" }).click();

  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByTestId("signed-in-as")).toHaveText(GUEST.name);
  // Nothing of the owner's: the feed invites the first tracker (and a place and a calendar), nothing else.
  await expect(page.getByRole("heading", { name: "Start with a decision" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Create your first tracker" })).toHaveAttribute("href", "/trackers/new");
  await expect(page.locator('[data-testid="feed-card"][data-item-type="tracker-change"]')).toHaveCount(0);

  // The not-found page, with a real 404 status: the tracker page is not streamed behind a loading state, so the
  // status is decided after the ownership check.
  const response = await page.goto(`/trackers/${ownerTrackerId}`);
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
  await expect(page.getByText("Is Acme undercutting Olive?")).toHaveCount(0);

  // Members do not manage people.
  await page.goto("/settings");
  await expect(page.getByRole("heading", { name: "Account" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "People" })).toHaveCount(0);

  // The link worked once.
  const again = await newPage(browser);
  await again.goto(inviteLink);
  await expect(again.getByTestId("invite-problem")).toHaveText(
    "This invite link has already been used. Ask the owner for a new one.",
  );
});
