import { z } from "zod";
import { messageText, textMessage } from "@/contracts/setup-ui-message";
import { parseCapabilityInput, type TCapabilityConfig, ZRenderModeSchema } from "../../capabilities";
import type { TDb } from "../../db";
import { AppError } from "../../errors";
import { getTracker, updateCapabilityInput } from "../tracker-store";
import { keepSample, readSample } from "./bind-and-sample";
import { scriptContentNote } from "./detect-script-content";
import { draftWithNotes } from "./fallback";
import { listingOfSample } from "./read-listing-sample";
import { lockedSampleNote, READ_MODE_TEXT } from "./read-mode";
import { saveSetupDraft, type TSavedSetupDraft } from "./save-setup-draft";
import { getSetupState } from "./session";
import { appendSetupMessages } from "./setup-messages";

export const ZSetReadModeInput = z.object({ render: ZRenderModeSchema });

/**
 * The card's read-mode switch (web.scrape `render`: auto / always / never): reads the sample again that way,
 * keeps it with the session and stores the mode in the tracker's capability input at once (like the card's
 * schedule), so locking keeps it. A new setup is redrafted from the new sample — the point of switching is
 * usually a price only the browser sees; an edit of a live tracker keeps its definition and only re-reads.
 * A sample that cannot be read that way (no browser, a failing render) changes nothing and says why.
 */
export async function setSetupReadMode(
  db: TDb,
  input: { userId: string; sessionId: string; render: z.infer<typeof ZRenderModeSchema>; config: TCapabilityConfig },
): Promise<{ said: string[]; draft: TSavedSetupDraft | null }> {
  const state = await getSetupState(db, input);
  if (!state.tracker) throw new AppError("PRECONDITION_FAILED", "Bind a page before choosing how it is read.");
  const tracker = await getTracker(db, { userId: input.userId, trackerId: state.tracker.id });
  if (tracker.capability !== "web.scrape") throw new AppError("BAD_REQUEST", "Only web pages have a read mode.");
  if (input.render === "always" && !input.config.fetch.browser) {
    throw new AppError(
      "PRECONDITION_FAILED",
      "This server has no browser configured (BROWSER_EXECUTABLE_PATH or BROWSER_WS_ENDPOINT), so it cannot render pages.",
    );
  }
  const current = tracker.capabilityInput as { url?: unknown; listing?: unknown };
  // A fresh choice: what `auto` remembered about the old sample is decided again by the new one. A listing watched
  // as a set stays one (docs/sets.md).
  const capabilityInput = parseCapabilityInput("web.scrape", {
    url: current.url,
    render: input.render,
    ...(current.listing ? { listing: current.listing } : {}),
  });
  const label = typeof current.url === "string" ? current.url : "the page";
  const read = await readSample({ capability: "web.scrape", input: capabilityInput, label, config: input.config });
  if (!read.ok) throw new AppError("PRECONDITION_FAILED", `${read.message} The read mode was not changed.`);
  const { sample } = read;
  await updateCapabilityInput(db, { trackerId: tracker.id, capabilityInput: sample.input });
  await keepSample(db, { userId: input.userId, sessionId: input.sessionId }, read);

  const said = [`Now read ${READ_MODE_TEXT[input.render].short}; I read the sample again that way.`];
  if (sample.scriptContent) said.push(scriptContentNote(sample.scriptContent, !!input.config.fetch.browser));
  let draft: TSavedSetupDraft | null = null;
  if (tracker.status === "draft") {
    const first = state.messages.find((m) => m.role === "user");
    const { definition, notes } = draftWithNotes("web.scrape", sample.results, {
      decision: first ? messageText(first) : tracker.decision,
      reading: sample.reading,
      listing: listingOfSample(sample),
    });
    draft = await saveSetupDraft(db, { userId: input.userId, sessionId: input.sessionId, definition });
    const n = definition.fields.length;
    said.push(`I redrafted the card from it: ${n} field${n === 1 ? "" : "s"}.`, ...notes);
  } else {
    said.push(lockedSampleNote);
    // The card's reading line and switch follow the tracker's new input; the definition is the one being edited.
    const after = await getSetupState(db, input);
    if (after.draft && after.tracker)
      draft = { ...after.draft, scheduleMinutes: after.tracker.scheduleMinutes, trackerId: after.tracker.id };
  }
  await appendSetupMessages(db, {
    sessionId: input.sessionId,
    messages: [textMessage("assistant", said.join(" "), { kind: "info" })],
  });
  return { said, draft };
}
