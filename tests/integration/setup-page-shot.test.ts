import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeBrowsers, type TCapabilityConfig } from "@/server/capabilities";
import {
  createSetupSession,
  elementAtPoint,
  getPageShotImage,
  getPageView,
  getSetupState,
  pointAtElement,
  rereadSetupPage,
} from "@/server/intelligence/setup";
import type { TFixtureSite } from "../fixtures/site/site";
import type { TTestDb } from "../helpers/db";
import { elementShowing } from "../helpers/page-view";
import { setupTurn } from "../helpers/setup-turn";
import { closeSiteWorld, openSiteWorld } from "../helpers/site-world";
import { localCapabilityConfig, testBrowserConfig } from "../helpers/trackers";

/**
 * The page's picture in the page view (docs/page-view.md): with a browser configured, the sample is photographed
 * as a person sees it — its own stylesheet fetched through the guards, its scripts not run — and the boxes on the
 * picture name the copy's elements, so a click on the picture points at the element under it, and the rest is
 * the copy's pointing. Real Chromium, PGlite, the fixture site; no network.
 */

const browser = testBrowserConfig();
let t: TTestDb;
let site: TFixtureSite;
let userId: string;

/** Three plan cards side by side; the stylesheet (a separate request) pushes the Pro card 400 px down. */
const PLANS = `<!doctype html><html><head><title>Plans</title><link rel="stylesheet" href="/plans.css"></head><body>
<main class="plans">
  <section class="plan" id="starter"><h2>Starter</h2><p class="price">$19</p></section>
  <section class="plan" id="pro"><h2>Pro</h2><p class="price">$49</p></section>
  <section class="plan" id="team"><h2>Team</h2><p class="price">$99</p></section>
</main>
<script>document.querySelector("#team").insertAdjacentHTML("beforeend", "<p id=injected>injected</p>")</script>
</body></html>`;
const CSS = `body{margin:0;font:16px sans-serif} .plans{display:flex;gap:40px;padding:20px}
.plan{width:300px;height:200px;border:1px solid #999} #pro{margin-top:400px} .price{font-size:32px}`;

beforeAll(async () => {
  ({ t, site, userId } = await openSiteWorld());
  site.setPage("/shot/plans", { body: PLANS });
  site.setPage("/plans.css", { body: CSS, contentType: "text/css" });
});
afterAll(async () => {
  await closeBrowsers();
  await closeSiteWorld(t, site);
});

function config(withBrowser: boolean): TCapabilityConfig {
  const cfg = localCapabilityConfig([site.url], { timeoutMs: 5_000 });
  if (withBrowser && browser) cfg.fetch.browser = browser;
  return cfg;
}

async function start(withBrowser: boolean) {
  const session = await createSetupSession(t.db, { userId });
  await setupTurn(t.db, {
    userId,
    sessionId: session.id,
    text: `Is Acme undercutting us on the Pro plan? ${site.urlFor("/shot/plans")}`,
    config: config(withBrowser),
    model: null,
  });
  return session.id;
}

const centre = (b: { x: number; y: number; width: number; height: number }) => ({
  x: b.x + b.width / 2,
  y: b.y + b.height / 2,
});

describe.skipIf(!browser)("the page's picture", () => {
  it("photographs the page with its stylesheet and without its scripts, and boxes what the view marks", async () => {
    const sessionId = await start(true);
    const view = await getPageView(t.db, { userId, sessionId, which: "current", config: config(true) });
    expect(view?.shot).not.toBeNull();
    if (!view?.shot) return;
    expect(view.shot.width).toBe(1280);
    expect(view.shot.height).toBeGreaterThanOrEqual(600);
    // The picture itself: a JPEG, as a data URL.
    const image = await getPageShotImage(t.db, { userId, sessionId });
    const bytes = Buffer.from(image?.dataUrl.replace(/^data:image\/jpeg;base64,/, "") ?? "", "base64");
    expect([...bytes.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    // The copy's scripts did not run in the picture's browser either.
    expect(view.html).not.toContain("injected");
    const box = (n: number) => view.shot?.boxes.find((b) => b.element === n);
    const pro = box(elementShowing(view.html, "$49"));
    const starter = box(elementShowing(view.html, "$19"));
    const team = box(elementShowing(view.html, "$99"));
    // The watched field (Pro) and the two prices passed over all have boxes, laid out as the stylesheet says.
    expect(view.fields.find((f) => f.type === "money")?.elements).toEqual([elementShowing(view.html, "$49")]);
    expect(pro && starter && team).toBeTruthy();
    if (!pro || !starter || !team) return;
    expect(pro.y - starter.y).toBeGreaterThanOrEqual(390);
    expect(starter.x).toBeLessThan(pro.x);
    expect(pro.x).toBeLessThan(team.x);
    expect(pro.height).toBeGreaterThan(20);
  });

  it("a click on the picture points at the element under it, and binds like a click on the copy", async () => {
    const sessionId = await start(true);
    const cfg = config(true);
    const view = await getPageView(t.db, { userId, sessionId, which: "current", config: cfg });
    const team = view?.shot?.boxes.find((b) => b.element === elementShowing(view.html, "$99"));
    expect(team).toBeDefined();
    if (!team) return;
    const hit = await elementAtPoint(t.db, { userId, sessionId, ...centre(team), config: cfg });
    expect(hit).toEqual({ element: team.element, text: "$99", box: team });
    // Its heading is an element of its own; between the two, the card holding both.
    const heading = await elementAtPoint(t.db, { userId, sessionId, x: team.x + 5, y: team.y - 40, config: cfg });
    expect(heading?.text).toBe("Team");
    const card = await elementAtPoint(t.db, { userId, sessionId, x: team.x + 5, y: team.y - 8, config: cfg });
    expect(card?.text).toBe("Team$99");
    // Beside the cards, the row that holds them; below the page, nothing.
    expect((await elementAtPoint(t.db, { userId, sessionId, x: 1270, y: 5, config: cfg }))?.text).toMatch(
      /^Starter\$19 Pro\$49 Team\$99/,
    );
    expect(await elementAtPoint(t.db, { userId, sessionId, x: 10, y: 20_000, config: cfg })).toBeNull();
    const state = await getSetupState(t.db, { userId, sessionId });
    const price = state.draft?.definition.fields.find((f) => f.type === "money");
    const result = await pointAtElement(t.db, {
      userId,
      sessionId,
      element: team.element,
      field: price?.name ?? null,
      config: cfg,
    });
    expect(result.said.join(" ")).toMatch(/99/);
    const after = await getPageView(t.db, { userId, sessionId, which: "current", config: cfg });
    expect(after?.fields.find((f) => f.type === "money")?.reads).toMatch(/^99\b/);
  });

  it("a re-read takes a new picture; Before has none and without a browser there is none", async () => {
    const sessionId = await start(true);
    const cfg = config(true);
    const first = await getPageView(t.db, { userId, sessionId, which: "current", config: cfg });
    site.setPage("/plans.css", { body: CSS.replace("margin-top:400px", "margin-top:100px"), contentType: "text/css" });
    const reread = await rereadSetupPage(t.db, { userId, sessionId, config: cfg });
    const pro = (v: typeof first) => v?.shot?.boxes.find((b) => b.element === elementShowing(v.html, "$49"));
    expect(reread.view?.shot?.takenAt).not.toBe(first?.shot?.takenAt);
    expect((pro(first)?.y ?? 0) - (pro(reread.view)?.y ?? 0)).toBeGreaterThanOrEqual(290);
    const before = await getPageView(t.db, { userId, sessionId, which: "earlier", config: cfg });
    expect(before?.shot).toBeNull();
    site.setPage("/plans.css", { body: CSS, contentType: "text/css" });

    const plain = await start(false);
    const plainView = await getPageView(t.db, { userId, sessionId: plain, which: "current", config: config(false) });
    expect(plainView?.html).toContain("$49");
    expect(plainView?.shot).toBeNull();
    expect(await getPageShotImage(t.db, { userId, sessionId: plain })).toBeNull();
    expect(await elementAtPoint(t.db, { userId, sessionId: plain, x: 10, y: 10, config: config(false) })).toBeNull();
  });
});
