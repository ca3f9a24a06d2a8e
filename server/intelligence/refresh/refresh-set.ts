import type { LanguageModel } from "ai";
import type { TSetPolicy } from "@/contracts/definition/set-rule-schema";
import type { TSetMember } from "../../capabilities";
import {
  appendChangeSql,
  loadSetMembers,
  newMemberId,
  setMemberWritesSql,
  type TEncodedCapture,
  type TMemberWrites,
  type TStoredMember,
  writeCurrentStateSql,
} from "../../timeline";
import type { TRecord, TTrackerDefinition } from "../definition";
import type { TDeltas } from "../diff";
import { setReplayBasisOf } from "../replay/replay-basis";
import {
  applySetRulesToMembers,
  buildRollUp,
  diffSet,
  inKeyOrder,
  judgeMembers,
  membersMovedByRules,
  memberValues,
  readMembers,
} from "../set";
import type { TDecision } from "./decide-change";
import { finishRun } from "./finish-run";
import { judgeChanges } from "./judge-changes";
import { keepCapture } from "./keep-capture";
import type { TRefreshResult } from "./refresh-result";
import type { TRunContext } from "./run-context";
import type { TTimelineWrites } from "./timeline-writes";

/**
 * A set whose pre-check found new content (docs/sets.md; an unchanged set never gets here: its whole document, the
 * members sorted by key, hashed the same, and the run ended at the floor). The members are read in one query and
 * diffed by key (`diffSet`: appeared, changed, missing, gone after `missingAfter` reads); only members that moved are
 * judged, field by field by the definition's own rules (the model, when on, sees only those); the set's rules judge
 * the whole (`judgeSet`). Everything is written in the run's one fenced final write: the members' rows, states and
 * changes, and the set's own state and roll-up change — the one that carries the notice. What is decided is the pure
 * part in server/intelligence/set (readMembers, judgeMembers, buildRollUp), which a replay runs too (docs/replay.md).
 */

type TSetInput = {
  def: TTrackerDefinition & { set: TSetPolicy };
  version: number;
  items: readonly TSetMember[];
  /** The set's own entity (the feed, the listing page) and its new document hash. */
  entityId: string;
  contentHash: string;
  /** Null: the set's first run (the baseline). */
  previousState: unknown;
  encoded: Promise<TEncodedCapture>;
  model: LanguageModel | null;
  checkBudget: () => Promise<void>;
};

const presence = (from: "listed" | "gone", to: "listed" | "gone") => ({ presence: { from, to } });

export async function refreshSet(ctx: TRunContext, input: TSetInput): Promise<TRefreshResult> {
  const { db, tracker, trackerId } = ctx;
  const { def, version } = input;
  const policy = def.set;

  // Each member's fields, by the definition's extractors over the member's own values.
  const { records, current } = await readMembers(def, input.items);
  const stored = await ctx.steps.time(
    "diff",
    () => loadSetMembers(db, { trackerId }),
    (m) => `${m.length} member(s) on record, ${records.size} listed`,
  );
  const byKey = new Map(stored.map((m) => [m.key, m]));
  const previous = inKeyOrder(
    stored.map((m) => [
      m.key,
      {
        values: memberValues(def, m.fields ?? {}),
        hash: m.contentHash ?? "",
        missingRuns: m.missingRuns,
        goneAt: m.goneAt?.toISOString() ?? null,
      },
    ]),
  );
  const diff = diffSet(previous, current, policy);

  const writes: TMemberWrites = {
    trackerId,
    runId: ctx.runId,
    definitionVersion: version,
    added: [],
    states: [],
    missing: [],
    presence: [],
    changes: [],
  };
  const first = input.previousState === null;
  const idOf = (key: string): string => {
    const known = byKey.get(key);
    if (known) return known.entityId;
    const entityId = newMemberId();
    writes.added.push({ entityId, key });
    byKey.set(key, { entityId, key, goneAt: null, fields: null, contentHash: null, missingRuns: 0 });
    return entityId;
  };
  // A member's state is written at most once per run (one row per member in the final write); it resets missingRuns.
  const stated = new Set<string>();
  const keepState = (key: string, hash: string, fields: TRecord = records.get(key) ?? {}) => {
    stated.add(key);
    writes.states.push({ entityId: idOf(key), fields, contentHash: hash });
  };

  // Appeared and back: a row, a state, and (after the first run) a timeline entry saying so.
  for (const item of [...diff.appeared, ...diff.reappeared]) {
    keepState(item.key, item.hash);
    const back = "goneAt" in item;
    if (back) writes.presence.push({ entityId: idOf(item.key), gone: false });
    if (!first)
      writes.changes.push({ entityId: idOf(item.key), ...memberEntry(def, records.get(item.key) ?? {}, back) });
  }
  // Changed: judged field by field like a single entity; noise moves the state but records nothing.
  // The set's drop and rise rules make a member's move material even where its field's own rule calls it noise.
  const ownJudgement = await judgeMembers({
    def,
    changed: diff.changed,
    before: (key) => ((byKey.get(key) as TStoredMember).fields ?? {}) as TRecord,
    after: (key) => records.get(key) ?? {},
    judge: async (_item, deltas) =>
      (await judgeChanges(ctx, { def, version, deltas, model: input.model, checkBudget: input.checkBudget })).byField,
  });
  const judged = applySetRulesToMembers(def, ownJudgement, membersMovedByRules(diff, policy));
  const memberDecisions: Record<string, TDecision> = {};
  for (const member of judged.members) {
    const { key, hash } = member.item;
    // Noise keeps the old value of a numeric field, so slow drift adds up (judge-members.ts `accepted`).
    keepState(key, hash, member.accepted);
    if (member.outcome === "noise") continue;
    Object.assign(memberDecisions, prefixed(key, member.byField));
    writes.changes.push({
      entityId: idOf(key),
      delta: member.kept,
      materiality: member.outcome,
      decisions: member.byField,
    });
  }
  // A state written under another hash function: the new hash only.
  for (const item of diff.rehashed) keepState(item.key, item.hash);
  for (const item of diff.missing) writes.missing.push({ entityId: idOf(item.key), missingRuns: item.missingRuns });
  // Back after a missed read: its count returns to 0 — already so when its state is written (it also changed).
  for (const key of diff.recovered) if (!stated.has(key)) writes.missing.push({ entityId: idOf(key), missingRuns: 0 });
  for (const item of diff.disappeared) {
    const entityId = idOf(item.key);
    writes.missing.push({ entityId, missingRuns: item.missingRuns });
    writes.presence.push({ entityId, gone: true });
    writes.changes.push({
      entityId,
      delta: presence("listed", "gone"),
      materiality: "notable",
      decisions: { presence: { verdict: "notable", decidedBy: "code", reason: "no longer listed" } },
    });
  }

  // Members: listed and not gone (one missing for fewer than missingAfter reads still counts).
  const before = stored.filter((m) => m.goneAt === null).length;
  const rollUp = buildRollUp({
    def,
    diff,
    first,
    before,
    records,
    material: judged.material,
    recorded: judged.recorded,
  });
  const { count, entry, summary } = rollUp;
  const recorded = entry && entry.materiality !== "baseline" ? entry.materiality : null;
  const setWrites: TTimelineWrites = (at, guard) => [
    ...(entry
      ? appendChangeSql({
          entityId: input.entityId,
          trackerId,
          runId: ctx.runId,
          capturedAt: at,
          delta: entry.delta,
          materiality: entry.materiality,
          decisions: entry.decisions,
          definitionVersion: version,
          guard,
        })
      : []),
    writeCurrentStateSql({
      entityId: input.entityId,
      // `missing`: members absent but not yet gone — the next read is counted even if the set hashes the same.
      fields: { members: count, missing: diff.missing.length },
      contentHash: input.contentHash,
      definitionVersion: version,
      checkedAt: at,
      guard,
    }),
    ...setMemberWritesSql({ ...writes, at, guard }),
  ];
  const outcome = first ? "baseline" : (recorded ?? "unchanged");
  return finishRun(ctx, {
    outcome,
    // Worded like a single entity's ("material: …"), so every place that shows a run's outcome reads it alike.
    summary: first
      ? summary
      : outcome === "unchanged"
        ? `no material change in the set (${summary})`
        : `${outcome}: ${summary}`,
    keep: await keepCapture(input.encoded, {
      def,
      decision: tracker.decision,
      observed: { members: count },
      deltas: rollUp.lines,
      decisions: { ...rollUp.reasons, ...memberDecisions },
      // The source's order and the members' agent verdicts: what a replay needs beyond the capture (docs/replay.md).
      set: setReplayBasisOf({ items: input.items, judged: judged.members }),
    }),
    writes: setWrites,
    changed: recorded,
  });
}

/** A member's own entry when it appears (or comes back): its fields from nothing, and its presence. */
function memberEntry(def: TTrackerDefinition, record: TRecord, back: boolean) {
  const delta: TDeltas = { ...presence("gone", "listed") };
  for (const field of def.fields) delta[field.name] = { from: null, to: record[field.name] ?? null };
  return {
    delta,
    materiality: "notable" as const,
    decisions: {
      presence: { verdict: "notable" as const, decidedBy: "code" as const, reason: back ? "listed again" : "new" },
    },
  };
}

function prefixed(key: string, byField: Record<string, TDecision>): Record<string, TDecision> {
  return Object.fromEntries(Object.entries(byField).map(([field, d]) => [`${key} · ${field}`, d]));
}
