import { documentFormatOfHash, hashStructuredDocument } from "../../capabilities";
import { ensureEntity, findOrCarryEntity, getCurrentState } from "../../timeline";
import type { TConditional } from "./page-validators";
import type { TCapture } from "./read-capture";
import type { TRunContext } from "./run-context";

/** The accepted record a changed page is diffed against, and the hash it was read under. */
export type TAcceptedState = { contentHash: string; fields: unknown };

export type TPrecheck =
  /** Same document under the same definition version: only the state stamp is written. */
  | { kind: "unchanged"; entityId: string; contentHash: string }
  /** New content; `state` null → the entity's first run (the baseline). */
  | { kind: "new"; entityId: string; contentHash: string; state: TAcceptedState | null; reformatted: boolean };

/**
 * Step 3, pre-check (docs/design.md §3): same document under the same definition version → nothing to do, no model
 * call, and (with the entity in the bundle) no statement before the final write. Records the "precheck" step.
 */
export async function precheckContent(
  ctx: TRunContext,
  input: { capture: TCapture; hashSalt: string },
): Promise<TPrecheck> {
  const { db, tracker, trackerId, steps } = ctx;
  const { capture } = input;
  const contentHash = capture.contentHash ?? hashStructuredDocument(capture.document, input.hashSalt);
  const format = documentFormatOfHash(contentHash);
  const known = tracker.stale ? undefined : tracker.entities.find((e) => e.entityKey === capture.entityKey.trim());
  if (known?.contentHash === contentHash) {
    steps.record({ step: "precheck", status: "ok", ms: 0, detail: "unchanged" });
    return { kind: "unchanged", entityId: known.id, contentHash };
  }
  // New document formats may derive entity keys differently (sessions stripped): an entity stored under
  // an older format keeps its timeline under the new key (one-time; see find-or-carry-entity.ts).
  const entity =
    known ??
    (await findOrCarryEntity(db, {
      trackerId,
      entityKey: capture.entityKey,
      isOlderFormat: (stored) => documentFormatOfHash(stored) < format,
    })) ??
    (await ensureEntity(db, { trackerId, entityKey: capture.entityKey }));
  // The accepted record to diff against comes with the bundle (no statement); only an entity the bundle did not
  // have (new, carried over, or a stale claim) is read.
  const state: TAcceptedState | null = known
    ? known.contentHash === null
      ? null
      : { contentHash: known.contentHash, fields: known.fields ?? {} }
    : await getCurrentState(db, entity.id);
  if (state && state.contentHash === contentHash) {
    steps.record({ step: "precheck", status: "ok", ms: 0, detail: "unchanged" });
    return { kind: "unchanged", entityId: entity.id, contentHash };
  }
  // A hash made under an older document format (e.g. before offers were read) differs even when the
  // page did not change: this run re-fills and, if no tracked field moved, only stores the new hash.
  const reformatted = !!state && documentFormatOfHash(state.contentHash) < format;
  steps.record({
    step: "precheck",
    status: "ok",
    ms: 0,
    detail: reformatted ? "new document format" : state ? "changed" : "first run",
  });
  return { kind: "new", entityId: entity.id, contentHash, state, reformatted };
}

/**
 * Step 3 for a 304 (docs/refresh.md "Conditional requests"): the server says the body is the one the validators named,
 * whose read left `contentHash` in the entity's state under this definition version (page-validators.ts checked that
 * before sending them) — unchanged, with nothing hashed, read or filled.
 */
export function precheckNotModified(ctx: TRunContext, conditional: TConditional): TPrecheck {
  ctx.steps.record({ step: "precheck", status: "ok", ms: 0, detail: "unchanged (not modified)" });
  return { kind: "unchanged", entityId: conditional.entityId, contentHash: conditional.contentHash };
}
