/**
 * Pure reads over the setup conversation for the page: what the draft card, the sample panel and the
 * chat bubbles show. The transcript (useChat's messages) is the one source; only the saved draft is
 * also kept aside, because direct card edits change it between turns.
 */
import type { TSetupState } from "@/components/providers/router-outputs";
import type { TDraftView, TSetupMessageKind, TSetupUIMessage } from "./types";

export type TSavedDraft = {
  view: TDraftView;
  version: number;
  definition: unknown;
  scheduleMinutes?: number;
  /** The draft tracker, for attaching context files while drafting. */
  trackerId?: string;
};
export type TSample = { target: string; document: unknown };

/** What the page starts from: a stored conversation, or nothing yet. */
export type TSetupSnapshot = {
  sessionId: string;
  locked: boolean;
  messages: TSetupUIMessage[];
  sample: TSample | null;
  draft: TSavedDraft | null;
  /** The version in force when this is an edit of a locked tracker (vN; the draft is vN+1), else null. */
  lockedVersion: number | null;
  /** The draft tracker once the page is bound (context files attach to it), even before a draft. */
  trackerId: string | null;
};

export function toSetupSnapshot(state: TSetupState): TSetupSnapshot {
  const s = state.sample as { label?: string; results?: { document?: unknown } } | null;
  return {
    sessionId: state.sessionId,
    locked: state.status === "locked",
    messages: state.messages,
    sample: s ? { target: s.label ?? "the target", document: s.results?.document ?? s.results ?? null } : null,
    draft: state.draft
      ? {
          view: state.draft.view,
          version: state.draft.version,
          definition: state.draft.definition,
          ...(state.tracker ? { scheduleMinutes: state.tracker.scheduleMinutes, trackerId: state.tracker.id } : {}),
        }
      : null,
    lockedVersion: state.tracker?.lockedVersion ?? null,
    trackerId: state.tracker?.id ?? null,
  };
}

/**
 * Where the page goes once a version is locked: the tracker. After an edit of a locked tracker (vN → vN+1) it says
 * which version was just locked, so the tracker page can offer to re-judge the stored history under it.
 */
export function afterLockHref(trackerId: string, editedFrom: number | null, lockedVersion: number | null): string {
  const base = `/trackers/${encodeURIComponent(trackerId)}`;
  return editedFrom !== null && lockedVersion !== null && lockedVersion > editedFrom
    ? `${base}?locked=${lockedVersion}`
    : base;
}

/** The draft being written right now (a partial in the reply that is streaming), or null. */
export function streamingDraft(message: TSetupUIMessage | undefined): TDraftView | null {
  if (message?.role !== "assistant") return null;
  const part = message.parts.findLast((p) => p.type === "data-draft");
  return part?.type === "data-draft" && part.data.status === "streaming" ? part.data.view : null;
}

/**
 * What the card shows while a reply may be writing a draft: the partial once it is at least as complete
 * as the saved draft (a first draft streams in field by field), otherwise the saved draft — so a
 * revision never empties the card while its first fields are still on their way.
 */
export function cardDraft(
  live: TDraftView | null,
  saved: TSavedDraft | null,
): { view: TDraftView | null; streaming: boolean } {
  const savedFields = saved?.view.fields.length ?? 0;
  if (live && live.fields.length >= Math.max(1, savedFields)) return { view: live, streaming: true };
  return { view: saved?.view ?? null, streaming: live !== null };
}

/** The newest sample read in the conversation. */
export function latestSample(messages: TSetupUIMessage[]): TSample | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const part = messages[i]?.parts.findLast((p) => p.type === "data-sample");
    if (part?.type === "data-sample") return part.data;
  }
  return null;
}

export function hasLocked(messages: TSetupUIMessage[]): boolean {
  return messages.some((m) => m.parts.some((p) => p.type === "data-locked"));
}

export type TBubble = { key: string; role: "user" | "assistant"; kind: TSetupMessageKind; text: string };

/** Chat bubbles: one per text part (styled by the message's kind) and one per error part. */
export function toBubbles(messages: TSetupUIMessage[]): TBubble[] {
  return messages.flatMap((m) => {
    const role = m.role === "user" ? "user" : "assistant";
    const kind = m.metadata?.kind ?? "text";
    return m.parts.flatMap((p, i): TBubble[] => {
      if (p.type === "text" && p.text) return [{ key: `${m.id}:${i}`, role, kind, text: p.text }];
      if (p.type === "data-error") return [{ key: `${m.id}:${i}`, role, kind: "error", text: p.data.message }];
      return [];
    });
  });
}

/**
 * A refused turn's message for people: routes answer `{ error: { message } }` (toHttpError), which the
 * transport passes on as the error's text.
 */
export function readableError(error: Error): string {
  try {
    const body = JSON.parse(error.message) as { error?: { message?: unknown } };
    if (typeof body.error?.message === "string") return body.error.message;
  } catch {
    // not JSON: a network error or a message already written for people
  }
  return error.message || "Something went wrong; please try again.";
}
