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
import type { TRecord, TRecordValue, TTrackerDefinition } from "../definition";
import { diffRecords, type TDeltas } from "../diff";
import { applyExtractors } from "../fill";
import {
  diffSet,
  hashItemValues,
  itemName,
  judgeSet,
  summarizeSet,
  type TItemValues,
  type TPrevEntity,
  type TSetDiff,
} from "../set";
import type { TDecision } from "./decide-change";
import { outcomeOf } from "./decide-change";
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
 * changes, and the set's own state and roll-up change — the one that carries the notice.
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

/** A member's value as the set's diff and rules read it: money as "<amount> <currency>", lists joined. */
function valueText(value: TRecordValue | undefined): string | null {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.join(", ");
  if (typeof value === "object") return `${value.amount} ${value.currency}`;
  return String(value);
}

const textValues = (def: TTrackerDefinition, record: Record<string, unknown>): TItemValues =>
  Object.fromEntries(def.fields.map((f) => [f.name, valueText(record[f.name] as TRecordValue | undefined)]));

const presence = (from: "listed" | "gone", to: "listed" | "gone") => ({ presence: { from, to } });

export async function refreshSet(ctx: TRunContext, input: TSetInput): Promise<TRefreshResult> {
  const { db, tracker, trackerId } = ctx;
  const { def, version } = input;
  const policy = def.set;

  // Each member's fields, by the definition's extractors over the member's own values.
  const records = new Map<string, TRecord>();
  for (const item of input.items) {
    if (records.has(item.key)) continue;
    records.set(item.key, (await applyExtractors(def, { json: item.values })).values);
  }
  const stored = await ctx.steps.time(
    "diff",
    () => loadSetMembers(db, { trackerId }),
    (m) => `${m.length} member(s) on record, ${records.size} listed`,
  );
  const byKey = new Map(stored.map((m) => [m.key, m]));
  const previous = new Map<string, TPrevEntity>(
    stored.map((m) => [
      m.key,
      {
        values: textValues(def, m.fields ?? {}),
        hash: m.contentHash ?? "",
        missingRuns: m.missingRuns,
        goneAt: m.goneAt?.toISOString() ?? null,
      },
    ]),
  );
  const current = [...records].map(([key, record]) => {
    const values = textValues(def, record);
    return { key, values, hash: hashItemValues(values) };
  });
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
  const keepState = (key: string, hash: string) =>
    writes.states.push({ entityId: idOf(key), fields: records.get(key) ?? {}, contentHash: hash });

  // Appeared and back: a row, a state, and (after the first run) a timeline entry saying so.
  for (const item of [...diff.appeared, ...diff.reappeared]) {
    keepState(item.key, item.hash);
    const back = "goneAt" in item;
    if (back) writes.presence.push({ entityId: idOf(item.key), gone: false });
    if (!first)
      writes.changes.push({ entityId: idOf(item.key), ...memberEntry(def, records.get(item.key) ?? {}, back) });
  }
  // Changed: judged field by field like a single entity; noise moves the state but records nothing.
  const memberMaterial = new Set<string>();
  const memberRecorded = new Set<string>();
  const memberDecisions: Record<string, TDecision> = {};
  for (const item of diff.changed) {
    const member = byKey.get(item.key) as TStoredMember;
    const deltas = diffRecords((member.fields ?? {}) as TRecord, records.get(item.key) ?? {}, def);
    const judged = await judgeChanges(ctx, {
      def,
      version,
      deltas,
      model: input.model,
      checkBudget: input.checkBudget,
    });
    const { outcome, kept } = outcomeOf(deltas, judged.byField);
    keepState(item.key, item.hash);
    if (outcome === "noise") continue;
    memberRecorded.add(item.key);
    if (outcome === "material") memberMaterial.add(item.key);
    Object.assign(memberDecisions, prefixed(item.key, judged.byField));
    writes.changes.push({ entityId: member.entityId, delta: kept, materiality: outcome, decisions: judged.byField });
  }
  // A state written under another hash function: the new hash only.
  for (const item of diff.rehashed) keepState(item.key, item.hash);
  for (const item of diff.missing) writes.missing.push({ entityId: idOf(item.key), missingRuns: item.missingRuns });
  for (const key of diff.recovered) writes.missing.push({ entityId: idOf(key), missingRuns: 0 });
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

  const verdict = judgeSet(diff, policy, (key) => memberMaterial.has(key));
  // Members: listed and not gone (one missing for fewer than missingAfter reads still counts).
  const before = stored.filter((m) => m.goneAt === null).length;
  const count = before + diff.appeared.length + diff.reappeared.length - diff.disappeared.length;
  const rollUp = rollUpOf(def, diff, { before, now: count, records, recorded: memberRecorded });
  const moved = Object.keys(rollUp.delta).length > 0 && !first;
  const recorded = first
    ? null
    : verdict.material || memberMaterial.size > 0
      ? ("material" as const)
      : moved
        ? ("notable" as const)
        : null;
  const formats = Object.fromEntries(def.fields.map((f) => [f.name, f]));
  const capped = diff.overCap ? `; ${diff.overCap.message}` : "";
  const summary = first
    ? `baseline recorded (${count} member(s))${capped}`
    : `${summarizeSet(diff, { isMaterial: (key) => memberMaterial.has(key), formats })}${capped}`;
  const decisions = rollUpDecisions(rollUp.delta, {
    diff,
    policy,
    memberMaterial,
    summary,
    missingAfter: policy.missingAfter,
  });
  const setWrites: TTimelineWrites = (at, guard) => [
    ...(first || recorded
      ? appendChangeSql({
          entityId: input.entityId,
          trackerId,
          runId: ctx.runId,
          capturedAt: at,
          delta: first ? { members: { from: null, to: count } } : rollUp.delta,
          materiality: first ? "baseline" : (recorded ?? "notable"),
          decisions: first ? {} : decisions,
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
      deltas: rollUp.delta,
      decisions: { ...decisions, ...memberDecisions },
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

/** The set's own entry: how many members, and who appeared, left or changed (names as people read them). */
function rollUpOf(
  def: TTrackerDefinition,
  diff: TSetDiff,
  counts: { before: number; now: number; records: Map<string, TRecord>; recorded: ReadonlySet<string> },
): { delta: TDeltas } {
  const name = (key: string) => itemName(key, textValues(def, counts.records.get(key) ?? {}));
  const delta: TDeltas = {};
  if (counts.before !== counts.now) delta.members = { from: counts.before, to: counts.now };
  const appeared = [...diff.appeared, ...diff.reappeared].map((i) => name(i.key));
  if (appeared.length) delta.appeared = { from: null, to: appeared.slice(0, 50) };
  const gone = diff.disappeared.map((i) => itemName(i.key, i.values));
  if (gone.length) delta.disappeared = { from: gone.slice(0, 50), to: null };
  // Changes the member's own rules called noise are not the set's news either.
  const changed = diff.changed.filter((i) => counts.recorded.has(i.key)).map((i) => name(i.key));
  if (changed.length) delta.changed = { from: null, to: changed.slice(0, 50) };
  return { delta };
}

const CHANGE_RULES = new Set(["any_item_drop", "any_item_rise", "items_changed_at_least"]);

/**
 * Each roll-up line's verdict and reason, by code: the set rules that speak to it (appeared, disappeared, the rules
 * over members' values for "changed") make it material and say why; otherwise it is notable, with what happened.
 */
function rollUpDecisions(
  delta: TDeltas,
  input: {
    diff: TSetDiff;
    policy: TSetPolicy;
    memberMaterial: ReadonlySet<string>;
    summary: string;
    missingAfter: number;
  },
): Record<string, TDecision> {
  const { diff, policy, memberMaterial } = input;
  const said = (kinds: (kind: string) => boolean) =>
    judgeSet(diff, { rules: policy.rules.filter((r) => kinds(r.kind)) }, (key) => memberMaterial.has(key)).reasons;
  const line = (reasons: string[], material: boolean, otherwise: string): TDecision => ({
    verdict: material || reasons.length > 0 ? "material" : "notable",
    decidedBy: "code",
    reason: reasons.length > 0 ? reasons.join("; ") : otherwise,
  });
  const out: Record<string, TDecision> = {};
  for (const field of Object.keys(delta)) {
    if (field === "appeared")
      out[field] = line(
        said((k) => k === "appeared"),
        false,
        "new in the set",
      );
    else if (field === "disappeared")
      out[field] = line(
        said((k) => k === "disappeared"),
        false,
        `not listed for ${input.missingAfter} reads in a row`,
      );
    else if (field === "changed")
      out[field] = line(
        said((k) => CHANGE_RULES.has(k)),
        memberMaterial.size > 0,
        input.summary,
      );
    else
      out[field] = {
        verdict: "notable",
        decidedBy: "code",
        reason: `members listed (one missing for fewer than ${input.missingAfter} reads still counts)`,
      };
  }
  return out;
}
