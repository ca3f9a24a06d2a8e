import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { expect, type Page, test } from "@playwright/test";
import { ACME_PRICING_DEFINITION, acmePricingPage } from "../fixtures/acme-pricing";
import { feedFixture, feedSetDefinition, RSS } from "../helpers/feed-set";
import {
  AUDIT_VIEWPORTS,
  ambiguousLinks,
  auditPage,
  headingOutlineProblems,
  layoutShift,
  mainHeading,
  seriousAxeViolations,
  type TAuditTarget,
  watchLayoutShift,
} from "./a11y";
import { site } from "./fixtures";
import { OWNER_STATE } from "./owner";
import { E2E_PORTS, E2E_URLS } from "./ports";

/**
 * Accessible and calm (docs/testing.md): every page, with realistic content, at 1280×800 and 390×844 in light
 * and dark, has no critical or serious axe-core violation, a heading outline without skipped levels, no two links
 * with one name leading to different places, and a cumulative layout shift under 0.1 while it loads and its data
 * arrives. The first-run page (no owner yet) is audited in a11y.accounts.spec.ts.
 */

type TSeed = {
  trackerId: string;
  failingId: string;
  draftSession: string;
  inviteToken: string;
  /** A tracker that watches a set (a feed), and one of its members that appeared after the baseline. */
  setId: string;
  memberKey: string;
};
type TAuditedPage = Omit<TAuditTarget, "path"> & { path: (seed: TSeed) => string };

const SIGNED_IN_PAGES: TAuditedPage[] = [
  {
    name: "feed",
    path: () => "/",
    ready: async (page) => {
      await mainHeading(page);
      await expect(page.getByText("Loading…", { exact: true })).toHaveCount(0);
    },
  },
  {
    name: "trackers list",
    path: () => "/trackers",
    ready: async (page) => {
      await expect(page.getByTestId("tracker-row").first()).toBeVisible();
      await expect(page.getByTestId("unfinished-setups")).toBeVisible();
    },
  },
  {
    name: "new tracker",
    path: () => "/trackers/new",
    ready: (page) => expect(page.getByTestId("setup-input")).toBeVisible(),
  },
  {
    name: "setup with a draft",
    path: (s) => `/trackers/new?session=${s.draftSession}`,
    ready: (page) => expect(page.getByTestId("draft-card")).toBeVisible(),
  },
  {
    name: "tracker page",
    path: (s) => `/trackers/${s.trackerId}`,
    ready: async (page) => {
      await expect(page.getByTestId("tracker-page")).toHaveAttribute("data-live", "live");
      await expect(page.getByTestId("chart-price").getByTestId("chart-svg")).toBeVisible();
    },
  },
  {
    name: "failing tracker page",
    path: (s) => `/trackers/${s.failingId}`,
    ready: async (page) => {
      await expect(page.getByTestId("tracker-page")).toHaveAttribute("data-live", "live");
      await expect(page.getByTestId("tracker-failing")).toBeVisible();
    },
  },
  {
    name: "set tracker page",
    path: (s) => `/trackers/${s.setId}`,
    ready: async (page) => {
      await expect(page.getByTestId("tracker-page")).toHaveAttribute("data-live", "live");
      await expect(page.getByTestId("set-member").first()).toBeVisible();
    },
  },
  {
    name: "set member page",
    path: (s) => `/trackers/${s.setId}/members/${encodeURIComponent(s.memberKey)}`,
    ready: async (page) => {
      await expect(page.getByTestId("set-member-page")).toBeVisible();
      await expect(page.getByTestId("set-member-change").first()).toBeVisible();
    },
  },
  {
    name: "edit page",
    path: (s) => `/trackers/${s.trackerId}/edit`,
    ready: (page) => expect(page.getByTestId("draft-card")).toBeVisible(),
  },
  {
    name: "settings",
    path: () => "/settings",
    ready: (page) => expect(page.getByRole("region", { name: "API tokens" })).toBeVisible(),
  },
  { name: "system", path: () => "/system", ready: mainHeading },
  { name: "404", path: () => "/no-such-page", ready: mainHeading, status: 404 },
  { name: "tracker 404", path: () => "/trackers/no-such-tracker", ready: mainHeading, status: 404 },
];

const SIGNED_OUT_PAGES: TAuditedPage[] = [
  { name: "sign-in", path: () => "/sign-in", ready: (page) => expect(page.getByLabel("Password")).toBeVisible() },
  { name: "sign-up (invitation only)", path: () => "/sign-up", ready: mainHeading },
  {
    name: "invite",
    path: (s) => `/invite/${s.inviteToken}`,
    ready: (page) => expect(page.getByLabel("Password", { exact: true })).toBeVisible(),
  },
  { name: "used-up invite", path: () => "/invite/no-such-invite-token", ready: mainHeading },
];

const shop = acmePricingPage;
const definition = ACME_PRICING_DEFINITION;

let seed: TSeed;
const SEED_FILE = `.test-data/e2e-${E2E_PORTS.rulesApp}-a11y-seed.json`;

/**
 * Realistic content, made the way people and integrations make it: trackers with a history of material changes,
 * noise and runs (public API), a failing one, a draft from the setup chat, and a pending invite.
 */
test.beforeAll(async ({ browser }) => {
  test.setTimeout(180_000);
  const context = await browser.newContext({
    baseURL: E2E_URLS.rulesApp,
    storageState: OWNER_STATE.rulesApp,
    extraHTTPHeaders: { origin: E2E_URLS.rulesApp },
  });
  const page = await context.newPage();
  // Playwright starts a new worker after a failed test, and this file's beforeAll with it: the content made by an
  // earlier worker of this run is reused while the app still has it (its database is wiped when it starts).
  if (existsSync(SEED_FILE)) {
    const cached = JSON.parse(readFileSync(SEED_FILE, "utf8")) as TSeed;
    if ((await page.request.get(`/trackers/${cached.trackerId}`)).status() === 200) {
      seed = cached;
      await context.close();
      return;
    }
  }
  const tag = Date.now();
  const trpc = async (path: string, input: unknown) => {
    const res = await page.request.post(`/api/trpc/${path}`, { data: { json: input } });
    expect(res.ok(), `${path}: ${await res.text()}`).toBe(true);
    return (await res.json()).result.data.json;
  };
  const headers = { authorization: `Bearer ${(await trpc("apiToken.create", { name: "e2e a11y" })).token}` };
  const create = async (decision: string, path: string) => {
    const res = await page.request.post("/api/v1/trackers", {
      headers,
      data: { decision, capability: "web.scrape", capabilityInput: { url: site.urlFor(path) }, definition },
    });
    expect(res.status()).toBe(201);
    return (await res.json()).tracker.id as string;
  };
  const refresh = async (id: string) =>
    (await (await page.request.post(`/api/v1/trackers/${id}/refresh`, { headers })).json()).run;

  const trackers: string[] = [];
  for (const [i, decision] of [
    "Is Acme undercutting our Pro plan?",
    "Should we switch to Globex for hosting?",
    "Is Initech's team plan worth it yet?",
  ].entries()) {
    const path = `/e2e-a11y-${tag}-${i}`;
    await site.setPage(path, { body: shop("$100.00", "4.0") });
    const id = await create(`${decision} (a11y ${tag})`, path);
    expect((await refresh(id)).outcome).toBe("baseline");
    for (const [price, rating] of <[string, string][]>[
      ["$100.00", "4.1"],
      ["$90.00", "4.1"],
      ["$90.00", "4.5"],
      ["$80.00", "4.4"],
      ["$80.00", "4.4"],
      ["$85.00", "4.4"],
    ]) {
      await site.setPage(path, { body: shop(price, rating) });
      await refresh(id);
    }
    trackers.push(id);
  }
  const failingPath = `/e2e-a11y-${tag}-down`;
  await site.setPage(failingPath, { status: 500, body: "Internal Server Error" });
  const failingId = await create(`Is the supplier page up? (a11y ${tag})`, failingPath);
  for (let i = 0; i < 3; i++) expect((await refresh(failingId)).status).toBe("failed");

  await site.setPage(`/e2e-a11y-${tag}-draft`, { body: shop("$39.50", "4.2") });
  await page.goto("/trackers/new");
  await page
    .getByTestId("setup-input")
    .fill(`Tell me when gizmo ${tag} gets cheaper at ${site.urlFor(`/e2e-a11y-${tag}-draft`)}`);
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.getByTestId("draft-card")).toBeVisible();
  await expect(page).toHaveURL(/\/trackers\/new\?session=/);
  const draftSession = new URL(page.url()).searchParams.get("session") as string;

  // A feed watched as a set: a baseline, then a new, an edited and a missing entry (one roll-up, the members' entries).
  const feedPath = `/e2e-a11y-${tag}-changelog.rss`;
  await site.setPage(feedPath, { body: feedFixture("changelog.rss.xml"), contentType: RSS });
  const setRes = await page.request.post("/api/v1/trackers", {
    headers,
    data: {
      decision: `What did the rival ship this month? (a11y ${tag})`,
      capability: "feed.items",
      capabilityInput: { url: site.urlFor(feedPath) },
      definition: feedSetDefinition(),
    },
  });
  expect(setRes.status()).toBe(201);
  const setId = (await setRes.json()).tracker.id as string;
  expect((await refresh(setId)).outcome).toBe("baseline");
  await site.setPage(feedPath, { body: feedFixture("changelog-v2.rss.xml"), contentType: RSS });
  expect((await refresh(setId)).outcome).toBe("material");
  const listed = await page.request.get(`/api/v1/trackers/${setId}/members?sort=first_seen`, { headers });
  const newest = ((await listed.json()).members as { key: string; isNew: boolean }[]).find((m) => m.isNew);
  expect(newest, "a member that appeared after the baseline").toBeDefined();

  const { token: inviteToken } = await trpc("account.createInvite", { note: "a11y" });
  const [trackerId] = trackers as [string];
  seed = { trackerId, failingId, draftSession, inviteToken, setId, memberKey: newest?.key ?? "" };
  writeFileSync(SEED_FILE, JSON.stringify(seed));
  await context.close();
});

/**
 * The audits themselves can fail: a page with low-contrast text, a skipped heading level, two "Open" links to
 * different places and a banner that pushes the content down after load fails each check. Served by route
 * (no network), so it runs without the app.
 */
test("the audits catch contrast, a skipped heading, ambiguous links and a late layout shift", async ({ page }) => {
  await page.route("http://audit-self-test.invalid/", (route) =>
    route.fulfill({
      contentType: "text/html",
      body: `<!doctype html><html lang="en"><head><title>Self-test</title></head><body><main>
<h1>Trackers</h1><h3>Skipped a level</h3>
<p style="color:#bbb;background:#fff">Barely readable grey text</p>
<a href="/trackers/1">Open</a> <a href="/trackers/2">Open</a>
<div style="height:600px">Content</div></main>
<script>setTimeout(() => { const b = document.createElement("div"); b.style.height = "300px";
b.textContent = "Late banner"; document.body.prepend(b); document.body.dataset.late = "1"; }, 200)</script>
</body></html>`,
    }),
  );
  await watchLayoutShift(page);
  await page.goto("http://audit-self-test.invalid/");
  await expect(page.locator("body[data-late]")).toHaveCount(1);
  expect((await layoutShift(page)).cls).toBeGreaterThan(0.1);
  expect((await seriousAxeViolations(page)).map((f) => f.id)).toContain("color-contrast");
  expect(await headingOutlineProblems(page)).toEqual(['h1 "Trackers" → h3 "Skipped a level"']);
  expect(await ambiguousLinks(page)).toHaveLength(1);
});

/**
 * Live updates are announced politely: the tracker page's live line and Refresh now's progress and outcome are
 * polite live regions (role "status") already in the page before anything is said in them — a region mounted
 * together with its first words is often not read out.
 */
test("tracker page: live news and Refresh now's progress go to polite live regions that exist beforehand", async ({
  page,
}) => {
  await page.goto(`/trackers/${seed.trackerId}`);
  await expect(page.getByTestId("tracker-page")).toHaveAttribute("data-live", "live");
  const live = page.getByTestId("tracker-live-status");
  await expect(live).toHaveRole("status");
  const feedback = page.getByTestId("refresh-feedback");
  await expect(feedback).toHaveRole("status");
  await expect(feedback).toHaveText("");
  await page.getByRole("button", { name: "Refresh now" }).click();
  await expect(feedback.getByTestId("refresh-outcome")).toHaveText(/\S/);
  // Nothing inside claims a region of its own (which would be mounted with its words).
  await expect(feedback.locator("[role=status], [aria-live]")).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Refresh now" })).toHaveAccessibleDescription(/\S/);
});

const audit = (page: Page, target: TAuditedPage) => auditPage(page, { ...target, path: target.path(seed) });

for (const viewport of AUDIT_VIEWPORTS) {
  test.describe(`${viewport.width}×${viewport.height}`, () => {
    test.use({ viewport });
    for (const target of SIGNED_IN_PAGES) {
      test(`${target.name}: no serious axe violation in light and dark, heading outline, named links, CLS < 0.1`, async ({
        page,
      }) => {
        await audit(page, target);
      });
    }
    test.describe("signed out", () => {
      test.use({ storageState: { cookies: [], origins: [] } });
      for (const target of SIGNED_OUT_PAGES) {
        test(`${target.name}: no serious axe violation in light and dark, heading outline, named links, CLS < 0.1`, async ({
          page,
        }) => {
          await audit(page, target);
        });
      }
    });
  });
}
