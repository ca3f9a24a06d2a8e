/**
 * Pure reads for the "Replay over history" panel (docs/replay.md): the plan as a sentence, the side-by-side rows matched
 * by run, the period the date inputs mean, and the NDJSON lines the replay stream answers.
 */
import type { TTimelineEntryView } from "@/components/timeline/timeline-entry";
import type { TValueFormat } from "@/contracts/definition/format-value";
import {
  type TReplayEntry,
  type TReplayEvent,
  type TReplayPlan,
  type TReplayResult,
  ZReplayEventSchema,
} from "@/contracts/replay";

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** "38 stored captures; 2 model calls needed" — or in rules mode "…; no model call will be made; 2 …left to the agent". */
export function planSentence(plan: TReplayPlan): string {
  const captures = plural(plan.captures, "stored capture");
  const reused = plan.reusable > 0 ? `; ${plural(plan.reusable, "model decision")} reused from what was stored` : "";
  if (plan.modelCallsNeeded === 0) return `${captures}; no model call needed${reused}.`;
  if (!plan.modelAvailable) {
    return `${captures}; no model call will be made (AI is off); ${plural(plan.modelCallsNeeded, "capture")} would be left to the agent${reused}.`;
  }
  return `${captures}; ${plural(plan.modelCallsNeeded, "model call")} needed${reused}.`;
}

export type TReplayDiff = "added" | "removed" | "changed" | "same";
export type TReplayRow = {
  runId: string;
  capturedAt: string;
  diff: TReplayDiff;
  recorded: TReplayEntry | null;
  replayed: TReplayEntry | null;
};

/** What each kind of row is called, in words (never colour alone). */
export const DIFF_LABEL: Record<TReplayDiff, string> = {
  added: "Added by the draft",
  removed: "Removed by the draft",
  changed: "Changed",
  same: "Same",
};

/** Recorded and replayed entries side by side, matched by run, oldest first. */
export function replayRows(result: TReplayResult): TReplayRow[] {
  const byRun = new Map<string, TReplayRow>();
  const row = (entry: TReplayEntry) => {
    let found = byRun.get(entry.runId);
    if (!found) {
      found = { runId: entry.runId, capturedAt: entry.capturedAt, diff: "same", recorded: null, replayed: null };
      byRun.set(entry.runId, found);
    }
    return found;
  };
  for (const entry of result.recorded) row(entry).recorded = entry;
  for (const entry of result.replayed) row(entry).replayed = entry;
  const added = new Set(result.added);
  const removed = new Set(result.removed);
  const changed = new Set(result.changed);
  for (const r of byRun.values()) {
    r.diff = added.has(r.runId)
      ? "added"
      : removed.has(r.runId)
        ? "removed"
        : changed.has(r.runId)
          ? "changed"
          : r.recorded && !r.replayed
            ? "removed"
            : !r.recorded && r.replayed
              ? "added"
              : "same";
  }
  return [...byRun.values()].sort((a, b) => a.capturedAt.localeCompare(b.capturedAt) || a.runId.localeCompare(b.runId));
}

/** A replay entry as the timeline's entry component reads it (ids kept apart per column). */
export function toEntryView(entry: TReplayEntry, column: "recorded" | "replayed"): TTimelineEntryView {
  return {
    id: `replay-${column}-${entry.runId}`,
    capturedAt: new Date(entry.capturedAt),
    materiality: entry.materiality,
    delta: entry.delta as TTimelineEntryView["delta"],
    decisions: entry.decisions as TTimelineEntryView["decisions"],
    definitionVersion: entry.definitionVersion,
  };
}

/** "Recorded 2 material and 1 notable · the draft 0 material and 1 notable · 2 removed, 0 added, 0 changed". */
export function countsSentence(result: TReplayResult): string {
  const { counts } = result;
  return (
    `Recorded: ${counts.recordedMaterial} material, ${counts.recordedNotable} notable · ` +
    `the draft: ${counts.replayedMaterial} material, ${counts.replayedNotable} notable · ` +
    `${result.added.length} added, ${result.removed.length} removed, ${result.changed.length} changed`
  );
}

/** The formats of a (draft) definition's fields, for values shown as people read them. */
export function fieldFormats(definition: unknown): Record<string, TValueFormat> {
  const fields = (definition as { fields?: unknown } | null | undefined)?.fields;
  if (!Array.isArray(fields)) return {};
  const out: Record<string, TValueFormat> = {};
  for (const f of fields as { name?: unknown; type?: unknown; unit?: unknown; currency?: unknown }[]) {
    if (typeof f?.name !== "string" || typeof f.type !== "string") continue;
    out[f.name] = {
      type: f.type as TValueFormat["type"],
      ...(typeof f.unit === "string" ? { unit: f.unit } : {}),
      ...(typeof f.currency === "string" ? { currency: f.currency } : {}),
    };
  }
  return out;
}

/**
 * The period the two date inputs mean, in the reader's own days: from the start of `from` to the end of `to`
 * (both inclusive); an empty input leaves that end open (all stored history).
 */
export function replayPeriod(from: string, to: string): { from?: Date; to?: Date } {
  const day = (value: string, time: string) => {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined;
    const date = new Date(`${value}T${time}`);
    return Number.isNaN(date.getTime()) ? undefined : date;
  };
  const start = day(from, "00:00:00");
  const end = day(to, "23:59:59.999");
  return { ...(start ? { from: start } : {}), ...(end ? { to: end } : {}) };
}

/** Splits NDJSON text into complete events and the unfinished rest (the next chunk continues it). */
export function parseReplayLines(buffer: string): { events: TReplayEvent[]; rest: string } {
  const lines = buffer.split("\n");
  const rest = lines.pop() ?? "";
  const events: TReplayEvent[] = [];
  for (const raw of lines) {
    if (!raw.trim()) continue;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      events.push({ type: "error", code: "INTERNAL", message: "The replay answered something unreadable." });
      continue;
    }
    const parsed = ZReplayEventSchema.safeParse(json);
    events.push(
      parsed.success
        ? parsed.data
        : { type: "error", code: "INTERNAL", message: "The replay answered something unreadable." },
    );
  }
  return { events, rest };
}

/** An error answer (`{ error: { message } }`) as one line for people. */
export function errorBodyMessage(body: unknown, status: number): string {
  const message = (body as { error?: { message?: unknown } } | null)?.error?.message;
  if (typeof message === "string" && message) return message;
  return `The replay could not start (HTTP ${status}). Please try again.`;
}
