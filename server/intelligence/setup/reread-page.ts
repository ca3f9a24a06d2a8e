import type { TPageView } from "@/contracts/setup-page-view";
import { meterModel, type TLanguageModel } from "../../ai";
import type { TCapabilityConfig } from "../../capabilities";
import type { TDb } from "../../db";
import { AppError, describeError } from "../../errors";
import type { TLogger } from "../../logger";
import { lastRecordedCapture } from "../../timeline";
import { budgetSpentMessage, recordModelUsage, spentModelBudget } from "../../usage";
import type { TTrackerDefinition } from "../definition";
import { ZCapturePayloadSchema } from "../replay/replay-basis";
import { getTracker } from "../tracker-store";
import { keepSample, readSample, samplePage, type TSetupSample } from "./bind-and-sample";
import { getPageView } from "./page-view";
import { proposeReanchorWithAgent } from "./propose-reanchor/propose-reanchor";
import { getSetupState } from "./session";
import { loadSetupPage, saveSetupProposals } from "./setup-page-store";

/**
 * "Read the page again" in the page view (docs/page-view.md): a fresh sample of the tracker's page, read as the
 * tracker reads it, kept with the session (its page, prices and reading) while the page read before stays as
 * "earlier" — so a field that stopped reading can be shown where it used to be and pointed at where it is now.
 * The draft is not changed: that is the person's to do. A page that cannot be read changes nothing and says why.
 * The answer carries the new view, so the page view shows what it said without a second round trip.
 */
export async function rereadSetupPage(
  db: TDb,
  input: {
    userId: string;
    sessionId: string;
    config: TCapabilityConfig;
    /** Model mode: the agent proposes where fields that read nothing now are (null or absent: rules mode). */
    model?: TLanguageModel | null;
    log?: TLogger;
  },
): Promise<{ said: string[]; view: TPageView | null }> {
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
  if (!read.page)
    said.push(
      read.pageProblem
        ? `Its copy for the page view could not be made: ${read.pageProblem}`
        : "It has no HTML to show, so the page view is empty.",
    );
  if (read.page?.shotProblem) said.push(`${read.page.shotProblem} The page's copy is shown instead.`);
  if (draft) said.push("Fields that read nothing now are marked; point at the right element to fix one.");
  if (draft && read.page && input.model)
    said.push(...(await agentProposals(db, { ...input, model: input.model }, tracker, draft, read.sample)));
  return { said, view: await getPageView(db, { ...input, which: "current" }) };
}

/**
 * Model mode after a re-read: the agent proposes a place for each field that stopped reading, kept with the page
 * for the page view ("Use it"). Within the person's budget and metered like a setup turn (docs/design.md §9); a failure
 * only means no proposal — the person points, as in rules mode.
 */
async function agentProposals(
  db: TDb,
  input: { userId: string; sessionId: string; config: TCapabilityConfig; model: TLanguageModel; log?: TLogger },
  tracker: { id: string; decision: string },
  draft: TTrackerDefinition,
  sample: TSetupSample,
): Promise<string[]> {
  const spent = await spentModelBudget(db, { userId: input.userId });
  if (spent) return [`${budgetSpentMessage(spent)} Until then, point at the fields yourself.`];
  const view = await getPageView(db, { ...input, which: "current" });
  const page = await loadSetupPage(db, input);
  if (!view || !page?.earlier || !view.fields.some((f) => f.reads === null)) return [];
  const metered = meterModel(input.model);
  try {
    const document = (sample.results as { document?: { mainText?: unknown } }).document;
    const result = await proposeReanchorWithAgent({
      model: metered.model,
      decision: tracker.decision,
      view,
      fields: draft.fields,
      pages: { now: page.html, before: page.earlier.html },
      pageText: typeof document?.mainText === "string" ? document.mainText : "",
      config: input.config,
    });
    if (result.proposals.length === 0) return [];
    await saveSetupProposals(db, { ...input, proposals: result.proposals });
    return result.proposals.map((p) => `For ${p.field}, the agent suggests ${p.where} (“${p.text}”): ${p.why}`);
  } catch (error) {
    input.log?.error("re-anchor proposal failed", { sessionId: input.sessionId, error: describeError(error) });
    return ["The agent could not suggest where the fields are now; point at them on the page."];
  } finally {
    const spend = metered.spent();
    if (spend.modelCalls > 0)
      await recordModelUsage(db, { userId: input.userId, trackerId: tracker.id, kind: "setup", spend });
  }
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
