import type { TCapabilityConfig } from "../../capabilities";
import type { TDb } from "../../db";
import { AppError } from "../../errors";
import { lastRecordedCapture } from "../../timeline";
import { ZCapturePayloadSchema } from "../replay/replay-basis";
import { getTracker } from "../tracker-store";
import { keepSample, readSample, samplePage } from "./bind-and-sample";
import { getSetupState } from "./session";
import { loadSetupPage } from "./setup-page-store";

/**
 * "Read the page again" in the page view (docs/page-view.md): a fresh sample of the tracker's page, read as the
 * tracker reads it, kept with the session (its page, prices and reading) while the page read before stays as
 * "earlier" — so a field that stopped reading can be shown where it used to be and pointed at where it is now.
 * The draft is not changed: that is the person's to do. A page that cannot be read changes nothing and says why.
 */
export async function rereadSetupPage(
  db: TDb,
  input: { userId: string; sessionId: string; config: TCapabilityConfig },
): Promise<{ said: string[] }> {
  const state = await getSetupState(db, input);
  if (!state.tracker) throw new AppError("PRECONDITION_FAILED", "Bind a page before reading it again.");
  const tracker = await getTracker(db, { userId: input.userId, trackerId: state.tracker.id });
  if (tracker.capability !== "web.scrape") throw new AppError("BAD_REQUEST", "Only web pages have a page view.");
  const url = (tracker.capabilityInput as { url?: unknown }).url;
  const label = typeof url === "string" ? url : "the page";
  const read = await readSample({
    capability: tracker.capability,
    input: tracker.capabilityInput,
    label,
    config: input.config,
  });
  if (!read.ok) throw new AppError("PRECONDITION_FAILED", `${read.message} The page view still shows the last read.`);
  // A tracker made outside the chat has no page kept with its session: "Before" is the page of its last recorded change.
  const earlier = (await loadSetupPage(db, input)) ? null : await lastRecordedPage(db, tracker.id, input.config);
  await keepSample(db, { userId: input.userId, sessionId: input.sessionId, keepEarlier: true, earlier }, read);
  const draft = state.draft?.definition;
  const said = [`I read ${label} again.`];
  if (!read.page) said.push("It has no HTML to show, so the page view is empty.");
  if (draft) said.push("Fields that read nothing now are marked; point at the right element to fix one.");
  return { said };
}

/** The page as the tracker last recorded a change from it, made inert like a sample (null without a stored page). */
async function lastRecordedPage(
  db: TDb,
  trackerId: string,
  config: TCapabilityConfig,
): Promise<{ html: string; readAt: Date } | null> {
  const last = await lastRecordedCapture(db, { trackerId });
  const parsed = ZCapturePayloadSchema.safeParse(last?.payload);
  const html = parsed.success ? parsed.data.raw.html : undefined;
  if (!last || !html) return null;
  const page = await samplePage(html, {}, config);
  return page ? { html: page.html, readAt: last.at } : null;
}
