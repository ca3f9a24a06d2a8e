import type { TPageBox } from "@/contracts/setup-page-view";
import { answerCssInWorker, cssQueryKey, ELEMENT_NUMBER, type TCapabilityConfig } from "../../capabilities";
import type { TDb } from "../../db";
import { collapse } from "./page-elements";
import { loadSetupPage, loadSetupPageShot } from "./setup-page-store";

/**
 * The page's picture in the page view (docs/page-view.md): the image itself, and what a click on it points at —
 * the innermost element whose box holds the point (the smallest box; the page and its body have none), named by its
 * number in the copy, so the rest of pointing is the copy's (`setup.pointAt`).
 */

/** The picture as a data URL, or null when the page has none. */
export async function getPageShotImage(
  db: TDb,
  input: { userId: string; sessionId: string },
): Promise<{ takenAt: string; dataUrl: string } | null> {
  const shot = await loadSetupPageShot(db, input);
  if (!shot) return null;
  return {
    takenAt: shot.readAt.toISOString(),
    dataUrl: `data:image/jpeg;base64,${Buffer.from(shot.image).toString("base64")}`,
  };
}

/** The element under (x, y) on the picture, with its text; null off every element. */
export async function elementAtPoint(
  db: TDb,
  input: { userId: string; sessionId: string; x: number; y: number; config: TCapabilityConfig },
): Promise<{ element: number; text: string; box: TPageBox } | null> {
  const page = await loadSetupPage(db, input);
  if (!page?.shot) return null;
  let best: { n: number; area: number; box: TPageBox } | null = null;
  for (const [n, x, y, w, h] of page.shot.boxes) {
    if (input.x < x || input.x >= x + w || input.y < y || input.y >= y + h) continue;
    const area = w * h;
    if (!best || area < best.area || (area === best.area && n > best.n))
      best = { n, area, box: { element: n, x, y, width: w, height: h } };
  }
  if (!best) return null;
  const query = { selector: `[${ELEMENT_NUMBER}="${best.n}"]`, all: false };
  const answers = await answerCssInWorker(page.html, [query], input.config.fetch.page);
  const answer = answers[cssQueryKey(query)];
  const text = answer?.ok ? collapse(answer.values[0] ?? "").slice(0, 80) : "";
  return { element: best.n, text, box: best.box };
}
