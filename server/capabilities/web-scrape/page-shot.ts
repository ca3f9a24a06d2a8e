import type { BrowserContext, Page } from "playwright-core";
import type { TFetchConfig } from "../config";
import { CapabilityFailure } from "../envelope";
import { SHOT_ATTRIBUTE } from "./page-snapshot";
import { guardRequests, poolFor } from "./render-page";
import type { TFetchStats } from "./safe-fetch";

/**
 * The screenshot of a sample page for the page view (docs/page-view.md), taken when a browser is configured: the
 * page as read (plain or rendered), stamped (page-snapshot.ts), shown to the browser with scripts off — its
 * stylesheets, images and fonts fetched through the same guards as a render — then measured and photographed. The
 * box of every stamped element is kept, so a click on the picture names an element of the copy, and the copy's
 * outlines can be drawn on the picture.
 */

export const SHOT_WIDTH = 1280;
/** Longer pages are photographed down to here (the copy below it is still there to point at). */
export const SHOT_MAX_HEIGHT = 6000;
const SHOT_QUALITY = 70;

/** [stamp, x, y, width, height] in the picture's pixels. */
export type TShotBox = [number, number, number, number, number];
export type TPageShot = { image: Uint8Array; width: number; height: number; boxes: TShotBox[] };

export async function shootPage(
  url: string,
  stampedHtml: string,
  fetch: TFetchConfig,
  options: { signal?: AbortSignal; stats: TFetchStats },
): Promise<TPageShot> {
  const config = fetch.browser;
  if (!config) throw new CapabilityFailure("NOT_CONFIGURED", "No browser is configured to photograph the page.");
  return poolFor(config).use(url, options.signal, async (browser) => {
    const deadline = performance.now() + config.pageTimeoutMs;
    const remaining = () => Math.max(1, Math.round(deadline - performance.now()));
    let context: BrowserContext | null = null;
    const timer = setTimeout(() => void context?.close().catch(() => {}), config.pageTimeoutMs);
    try {
      context = await browser.newContext({
        javaScriptEnabled: false,
        acceptDownloads: false,
        serviceWorkers: "block",
        userAgent: fetch.userAgent,
        locale: "en-US",
        viewport: { width: SHOT_WIDTH, height: 800 },
      });
      let page: Page | null = null;
      await guardRequests(context, fetch, {
        stats: options.stats,
        remaining,
        isMain: () => false,
        onBlocked: () => {},
        onTooLarge: () => void context?.close().catch(() => {}),
      });
      // Registered last, so asked first: the page itself is the stamped copy we hold (answered once); only what it
      // links to is fetched, through the guards above.
      let served = false;
      await context.route("**/*", (route) => {
        const request = route.request();
        if (served || !request.isNavigationRequest() || request.frame() !== page?.mainFrame()) return route.fallback();
        served = true;
        return route.fulfill({ status: 200, contentType: "text/html; charset=utf-8", body: stampedHtml });
      });
      page = await context.newPage();
      await page.goto(url, { waitUntil: "load", timeout: remaining() });
      const measured = await page.evaluate(
        ({ attribute, maxHeight }) => {
          const boxes: [number, number, number, number, number][] = [];
          for (const el of Array.from(document.querySelectorAll(`[${attribute}]`))) {
            // The page and its body hold every point: a click is never "the page".
            if (el === document.documentElement || el === document.body || el === document.head) continue;
            const r = el.getBoundingClientRect();
            const x = Math.round(r.left + window.scrollX);
            const y = Math.round(r.top + window.scrollY);
            const w = Math.round(r.width);
            const h = Math.round(r.height);
            if (w > 0 && h > 0 && y < maxHeight) boxes.push([Number(el.getAttribute(attribute)), x, y, w, h]);
          }
          const root = document.scrollingElement ?? document.documentElement;
          return { boxes, height: Math.min(maxHeight, Math.max(1, root.scrollHeight)) };
        },
        { attribute: SHOT_ATTRIBUTE, maxHeight: SHOT_MAX_HEIGHT },
      );
      const image = await page.screenshot({
        type: "jpeg",
        quality: SHOT_QUALITY,
        fullPage: true,
        clip: { x: 0, y: 0, width: SHOT_WIDTH, height: measured.height },
        timeout: remaining(),
      });
      return { image: new Uint8Array(image), width: SHOT_WIDTH, height: measured.height, boxes: measured.boxes };
    } catch (error) {
      if (error instanceof CapabilityFailure) throw error;
      const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
      throw new CapabilityFailure("RENDER_FAILED", `The page could not be photographed: ${message}`, true);
    } finally {
      clearTimeout(timer);
      await context?.close().catch(() => {});
    }
  });
}
