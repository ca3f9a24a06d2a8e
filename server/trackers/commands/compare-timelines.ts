import type { TReplayEntry, TReplayResult } from "@/contracts/replay";
import { describeDeltas } from "../../intelligence/refresh";
import { canonicalJson } from "../../lib/canonical-json";

type TComparison = Pick<TReplayResult, "added" | "removed" | "changed" | "counts" | "summary">;

/**
 * Side by side (docs/replay.md): the recorded timeline and the replayed one matched by run — entries only the replay has
 * (added), only the record has (removed), and both have with another verdict or delta (changed) — with the one
 * sentence a person reads first: "would have recorded 3 material changes instead of 11; would have missed: price
 * 49→44 on 12 Nov".
 */
export function compareTimelines(recorded: TReplayEntry[], replayed: TReplayEntry[]): TComparison {
  const byRun = (list: TReplayEntry[]) => new Map(list.map((e) => [e.runId, e]));
  const was = byRun(recorded);
  const would = byRun(replayed);
  const added = replayed.filter((e) => !was.has(e.runId)).map((e) => e.runId);
  const removed = recorded.filter((e) => !would.has(e.runId)).map((e) => e.runId);
  const changed = replayed
    .filter((e) => {
      const before = was.get(e.runId);
      return (
        before !== undefined &&
        (before.materiality !== e.materiality || canonicalJson(before.delta) !== canonicalJson(e.delta))
      );
    })
    .map((e) => e.runId);
  const count = (list: TReplayEntry[], m: TReplayEntry["materiality"]) =>
    list.filter((e) => e.materiality === m).length;
  const counts = {
    recordedMaterial: count(recorded, "material"),
    replayedMaterial: count(replayed, "material"),
    recordedNotable: count(recorded, "notable"),
    replayedNotable: count(replayed, "notable"),
  };
  return { added, removed, changed, counts, summary: summarise(counts, recorded, replayed, was, would) };
}

function summarise(
  counts: TComparison["counts"],
  recorded: TReplayEntry[],
  replayed: TReplayEntry[],
  was: Map<string, TReplayEntry>,
  would: Map<string, TReplayEntry>,
): string {
  if (recorded.length === 0 && replayed.length === 0) return "Nothing recorded in this period, and nothing would be.";
  const parts: string[] = [];
  const { recordedMaterial: a, replayedMaterial: b, recordedNotable: c, replayedNotable: d } = counts;
  parts.push(
    a === b
      ? `would have recorded the same ${changes(b, "material")}`
      : `would have recorded ${changes(b, "material")} instead of ${a}`,
  );
  if (c !== d) parts.push(`${changes(d, "notable")} instead of ${c}`);
  // "Missed": material before, not material now; "new": material now, not before.
  const missed = recorded.filter((e) => e.materiality === "material" && would.get(e.runId)?.materiality !== "material");
  const gained = replayed.filter((e) => e.materiality === "material" && was.get(e.runId)?.materiality !== "material");
  if (missed.length) parts.push(`would have missed: ${list(missed)}`);
  if (gained.length) parts.push(`would have added: ${list(gained)}`);
  return parts.join("; ");
}

function changes(n: number, kind: string): string {
  return `${n} ${kind} change${n === 1 ? "" : "s"}`;
}

const DAY = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", timeZone: "UTC" });

/** The first two, described and dated ("price 49→44 on 12 Nov"), then "+N more". */
function list(entries: TReplayEntry[]): string {
  const shown = entries
    .slice(0, 2)
    .map((e) => `${describeDeltas(e.delta, 2)} on ${DAY.format(new Date(e.capturedAt))}`)
    .join(", ");
  return entries.length > 2 ? `${shown} (+${entries.length - 2} more)` : shown;
}
