import { encodeCapture, type TEncodedCapture } from "../../timeline";
import { replayBasisOf, storedCapturePayload, type TReplayBasis } from "../replay/replay-basis";
import type { TCapture } from "./read-capture";

/** New content's capture and what the run decided from it, so a replay can run any definition over it later. */
export type TKeptCapture = { capture: TEncodedCapture; basis: TReplayBasis };

/**
 * New content: the run stores what it saw (docs/replay.md "Captures: what a replay reads"). Encoded as soon as the
 * content is known to be new, so that its compression (off the main thread) overlaps the fill's model call; a run
 * that fails before its end discards it.
 */
export function startCaptureEncoding(input: {
  trackerId: string;
  entityId: string;
  capture: TCapture;
}): Promise<TEncodedCapture> {
  const { capture } = input;
  const encoded = encodeCapture({
    trackerId: input.trackerId,
    entityId: input.entityId,
    payload: storedCapturePayload({ raw: capture.raw, entityKey: capture.entityKey, source: capture.source }),
  });
  encoded.catch(() => {}); // awaited by keepCapture; a failure there fails the run like any other step
  return encoded;
}

/**
 * What it saw and what it decided, in the run's own final statement, so a replay can run any definition over it
 * later. Unchanged pages never get here, so they store nothing.
 */
export async function keepCapture(
  encoded: Promise<TEncodedCapture>,
  input: Parameters<typeof replayBasisOf>[0],
): Promise<TKeptCapture> {
  return { capture: await encoded, basis: replayBasisOf(input) };
}
