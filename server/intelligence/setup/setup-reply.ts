import { generateId, type UIMessageStreamWriter } from "ai";
import type { TDraftView, TSetupMessageKind, TSetupUIMessage } from "@/contracts/setup-ui-message";

const DRAFT_PART_ID = "draft";
const SAMPLE_PART_ID = "sample";

/**
 * What a setup turn says, as UI message stream chunks: text parts (whole, or streamed delta by delta)
 * and typed data parts. Rules mode and the drafter agent write through this, so both speak the same
 * protocol. The draft is one data part per reply, updated in place by its id.
 */
export type TSetupReply = {
  /** A whole text reply; kind "question"/"info" styles the reply's text. */
  say(text: string, kind?: TSetupMessageKind): void;
  /** A text part that grows as the model writes it. */
  startText(): { delta(text: string): void; end(): void };
  /** A problem reported by code, as a data-error part. */
  error(message: string): void;
  /** Transient progress ("Reading …"), never stored. */
  status(text: string): void;
  /** The sample read when the target was bound; `trackerId` is the draft tracker it created (files attach to it). */
  sample(target: string, document: unknown, trackerId?: string): void;
  draftPartial(view: TDraftView): void;
  draftSaved(draft: {
    view: TDraftView;
    version: number;
    definition: unknown;
    scheduleMinutes?: number;
    trackerId?: string;
  }): void;
  /** Withdraws a partial draft that was never saved; a no-op when none is showing. */
  draftDiscarded(): void;
  locked(trackerId: string, version: number): void;
  /** How many text and error parts were written (an empty reply gets a fallback line). */
  readonly replies: number;
};

export function createSetupReply(writer: UIMessageStreamWriter<TSetupUIMessage>): TSetupReply {
  let replies = 0;
  let partialShowing = false;
  const startText = () => {
    const id = generateId();
    let started = false;
    return {
      delta(text: string) {
        if (!text) return;
        if (!started) {
          started = true;
          replies++;
          writer.write({ type: "text-start", id });
        }
        writer.write({ type: "text-delta", id, delta: text });
      },
      end() {
        if (started) writer.write({ type: "text-end", id });
      },
    };
  };
  return {
    say(text, kind = "text") {
      if (kind !== "text") writer.write({ type: "message-metadata", messageMetadata: { kind } });
      const part = startText();
      part.delta(text);
      part.end();
    },
    startText,
    error(message) {
      replies++;
      writer.write({ type: "data-error", id: generateId(), data: { message } });
    },
    status(text) {
      writer.write({ type: "data-status", data: { text }, transient: true });
    },
    sample(target, document, trackerId) {
      writer.write({
        type: "data-sample",
        id: SAMPLE_PART_ID,
        data: { target, document, ...(trackerId ? { trackerId } : {}) },
      });
    },
    draftPartial(view) {
      partialShowing = true;
      writer.write({ type: "data-draft", id: DRAFT_PART_ID, data: { status: "streaming", view } });
    },
    draftSaved({ view, version, definition, scheduleMinutes, trackerId }) {
      partialShowing = false;
      writer.write({
        type: "data-draft",
        id: DRAFT_PART_ID,
        data: {
          status: "saved",
          view,
          version,
          definition: definition as Record<string, unknown>,
          ...(scheduleMinutes === undefined ? {} : { scheduleMinutes }),
          ...(trackerId === undefined ? {} : { trackerId }),
        },
      });
    },
    draftDiscarded() {
      if (!partialShowing) return;
      partialShowing = false;
      writer.write({ type: "data-draft", id: DRAFT_PART_ID, data: { status: "discarded" } });
    },
    locked(trackerId, version) {
      writer.write({ type: "data-locked", id: "locked", data: { trackerId, version } });
    },
    get replies() {
      return replies;
    },
  };
}
