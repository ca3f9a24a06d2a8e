import { z } from "zod";
import {
  fieldLabel,
  formatFieldValue,
  formatRelativeChange,
  numericValue,
  type TValueFormat,
} from "@/contracts/definition/format-value";
import {
  type TChangeDecisions,
  type TChangeDelta,
  ZChangeDecisionsSchema,
  ZChangeDeltaSchema,
} from "@/contracts/timeline";
import type { TDb, TTx } from "../db";
import { MEMBER_KEY_PREFIX } from "./set-members";

/**
 * A set's roll-up entry as people read it (docs/sets.md, docs/feed.md, docs/notifications.md): one headline ("2 new
 * entries, 1 gone, 1 changed; Blend & Co: price $4.20 → $4.50 (+7.1%)") and a short list of the members it is about,
 * each linking to its member page. One view for the feed card, the notification message and the Atom entry, so they
 * say the same thing. Pure, apart from `loadRollUpMembers`, which reads the run's member entries (MemberChange) the
 * roll-up sums up: the roll-up itself carries only names, the members' own entries carry their keys and fields.
 */

/** The lines the set refresh writes on its roll-up (server/intelligence/refresh/refresh-set.ts). */
export const ROLL_UP_LINES = ["members", "appeared", "changed", "disappeared"] as const;

export const MEMBER_KINDS = ["new", "back", "changed", "gone"] as const;
export type TMemberKind = (typeof MEMBER_KINDS)[number];
export type TRollUpCounts = Record<TMemberKind, number>;

/** How many members the view lists (the rest are "+N more", one link away on the tracker's members list). */
export const MEMBERS_SHOWN = 5;
/** How many changed members the headline names, with their most important field. */
const NAMED_IN_HEADLINE = 2;
/** How many fields a changed member's line shows. */
const FIELDS_PER_MEMBER = 2;
/** The fields people call a member by, in order of preference (as the set's own naming reads them). */
const NAME_FIELDS = ["name", "title"] as const;
const NOTABLE_SIGNALS = "notable_signals";
const DEFAULT_NOUN = { one: "item", many: "items" } as const;

/** One member's own entry in the run the roll-up sums up (MemberChange), with its key and its accepted fields. */
export type TRollUpMember = {
  /** The member's identity (without the entity key's prefix). */
  key: string;
  kind: TMemberKind;
  materiality: "material" | "notable";
  delta: TChangeDelta;
  decisions: TChangeDecisions;
  /** The member's accepted record now (names a member whose entry does not carry its name); null: none. */
  fields: Record<string, unknown> | null;
};

export type TSetRollUpInput = {
  trackerId: string;
  /** The roll-up entry's lines (EntityChange of the set's own entity), JSON already parsed. */
  delta: TChangeDelta;
  /** The run's member entries, or null when not read (then names come from the roll-up, without member links). */
  members: readonly TRollUpMember[] | null;
  /** Exact counts per kind when `members` is a bounded part of them. */
  counts?: TRollUpCounts | null;
  /** The definition's fields by name: values as people read them. */
  formats: ReadonlyMap<string, TValueFormat>;
  /** What one member and many are called ("entry", "entries"); else "item", "items". */
  noun?: { one: string; many: string } | null;
  /** How many members to list (default MEMBERS_SHOWN). */
  limit?: number;
};

export type TSetMemberLine = {
  kind: TMemberKind;
  name: string;
  /** The member's page, or the tracker's members list when the member's key is unknown. */
  href: string;
  /** What changed ("price $4.20 → $4.50 (+7.1%)"), or the new member's main value; null: nothing to add. */
  detail: string | null;
  material: boolean;
};

export type TSetRollUpView = {
  headline: string;
  counts: TRollUpCounts;
  members: TSetMemberLine[];
  /** Members the list leaves out. */
  more: number;
  /** The tracker page's members list. */
  membersHref: string;
  noun: { one: string; many: string };
};

/** A member's page (app/trackers/[id]/members/[key]). */
export function memberHref(trackerId: string, key: string): string {
  return `/trackers/${encodeURIComponent(trackerId)}/members/${encodeURIComponent(key)}`;
}

/** The members list on the tracker's page. */
export function membersListHref(trackerId: string): string {
  return `/trackers/${encodeURIComponent(trackerId)}#members`;
}

/** Whether an entry's lines are a set roll-up's (and nothing else). */
export function isRollUpDelta(delta: TChangeDelta): boolean {
  const keys = Object.keys(delta);
  return keys.length > 0 && keys.every((k) => (ROLL_UP_LINES as readonly string[]).includes(k));
}

const KIND_RANK: Record<TMemberKind, number> = { new: 0, back: 1, changed: 2, gone: 3 };

/** The roll-up as people read it: headline, the first members (new, back, changed, gone; material first), the rest counted. */
export function setRollUpView(input: TSetRollUpInput): TSetRollUpView {
  const noun = input.noun ?? DEFAULT_NOUN;
  const limit = Math.max(0, input.limit ?? MEMBERS_SHOWN);
  const membersHref = membersListHref(input.trackerId);
  const lines = memberLines(input, membersHref);
  const counts = input.counts ?? countsOf(input, lines);
  const total = MEMBER_KINDS.reduce((sum, kind) => sum + counts[kind], 0);
  const shown = lines.slice(0, limit);
  const named = lines
    .filter((l) => l.kind === "changed" && l.headlineChange !== null)
    .slice(0, NAMED_IN_HEADLINE)
    .map((l) => `${l.name}: ${l.headlineChange}`);
  const parts = [countsPhrase(counts, noun), ...named].filter((p) => p !== "");
  if (parts.length === 0) parts.push(membersPhrase(input.delta, noun));
  return {
    headline: cut(parts.join("; "), 280),
    counts,
    members: shown.map(({ headlineChange: _, ...line }) => line),
    more: Math.max(0, total - shown.length),
    membersHref,
    noun,
  };
}

/** "2 new entries, 1 back, 1 gone, 3 changed": the noun rides on the first count. */
function countsPhrase(counts: TRollUpCounts, noun: { one: string; many: string }): string {
  const out: string[] = [];
  for (const kind of ["new", "back", "gone", "changed"] as const) {
    const n = counts[kind];
    if (n <= 0) continue;
    const count = n.toLocaleString("en-US");
    if (out.length > 0) out.push(`${count} ${kind}`);
    else {
      const word = n === 1 ? noun.one : noun.many;
      out.push(kind === "new" ? `${count} new ${word}` : `${count} ${word} ${kind}`);
    }
  }
  return out.join(", ");
}

/** Only the count moved (nothing named): "Entries listed: 6 → 5"; else "No change". */
function membersPhrase(delta: TChangeDelta, noun: { many: string }): string {
  const line = delta.members;
  const from = numericValue(line?.from);
  const to = numericValue(line?.to);
  if (from === null || to === null) return "No change";
  return `${fieldLabel(noun.many)} listed: ${formatFieldValue(from)} → ${formatFieldValue(to)}`;
}

type TLine = TSetMemberLine & { headlineChange: string | null };

function memberLines(input: TSetRollUpInput, membersHref: string): TLine[] {
  if (input.members === null || input.members.length === 0) return namesFromRollUp(input.delta, membersHref);
  const lines = input.members.map((m, i) => {
    const changes = m.kind === "changed" ? fieldChanges(m, input.formats) : [];
    return {
      i,
      line: {
        kind: m.kind,
        name: memberName(m),
        href: memberHref(input.trackerId, m.key),
        detail:
          m.kind === "changed"
            ? changes.slice(0, FIELDS_PER_MEMBER).join("; ") || null
            : m.kind === "gone"
              ? null
              : mainValue(m, input.formats),
        material: m.materiality === "material",
        headlineChange: changes[0] ?? null,
      },
    };
  });
  lines.sort(
    (a, b) =>
      KIND_RANK[a.line.kind] - KIND_RANK[b.line.kind] || Number(b.line.material) - Number(a.line.material) || a.i - b.i,
  );
  return lines.map((l) => l.line);
}

/** Without the members' entries: the names the roll-up lists, linking to the members list. */
function namesFromRollUp(delta: TChangeDelta, membersHref: string): TLine[] {
  const names = (value: unknown) => (Array.isArray(value) ? value.filter((v) => typeof v === "string") : []);
  const line = (kind: TMemberKind, name: string): TLine => ({
    kind,
    name: cut(name, 120),
    href: membersHref,
    detail: null,
    material: false,
    headlineChange: null,
  });
  return [
    ...names(delta.appeared?.to).map((n) => line("new", n)),
    ...names(delta.changed?.to).map((n) => line("changed", n)),
    ...names(delta.disappeared?.from).map((n) => line("gone", n)),
  ];
}

function countsOf(input: TSetRollUpInput, lines: readonly TLine[]): TRollUpCounts {
  const counts: TRollUpCounts = { new: 0, back: 0, changed: 0, gone: 0 };
  if (input.members !== null && input.members.length > 0) {
    for (const m of input.members) counts[m.kind]++;
    return counts;
  }
  for (const l of lines) counts[l.kind]++;
  return counts;
}

/** What people call the member: its name or title (as the entry has it, else as it is now), else its key. */
function memberName(m: TRollUpMember): string {
  for (const field of NAME_FIELDS) {
    const text = plainText(m.delta[field]?.to) ?? plainText(m.fields?.[field]) ?? plainText(m.delta[field]?.from);
    if (text !== null) return cut(text, 120);
  }
  return cut(m.key, 120);
}

function plainText(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const text = value.replace(/\s+/g, " ").trim();
  return text === "" ? null : text;
}

/**
 * A changed member's fields as people read them, material first, notable signals last: "price $4.20 → $4.50 (+7.1%)";
 * the field it is named by says what it was ("title was “Two new edge regions…”"), as the name already says what it is.
 */
function fieldChanges(m: TRollUpMember, formats: ReadonlyMap<string, TValueFormat>): string[] {
  const rank = (name: string) => (name === NOTABLE_SIGNALS ? 2 : m.decisions[name]?.verdict === "material" ? 0 : 1);
  return Object.entries(m.delta)
    .filter(([name]) => name !== "presence")
    .map(([name, d], i) => ({ name, d, i }))
    .sort((a, b) => rank(a.name) - rank(b.name) || a.i - b.i)
    .map(({ name, d }) => {
      const label = fieldLabel(name).toLowerCase();
      const was = (NAME_FIELDS as readonly string[]).includes(name) ? plainText(d.from) : null;
      if (was !== null) return `${label} was “${cut(was, 60)}”`;
      const format = formats.get(name);
      const a = numericValue(d.from);
      const b = numericValue(d.to);
      const relative = a !== null && b !== null ? formatRelativeChange(a, b) : null;
      const arrow = `${cut(formatFieldValue(d.from, format), 40)} → ${cut(formatFieldValue(d.to, format), 40)}`;
      return `${label} ${arrow}${relative ? ` (${relative})` : ""}`;
    });
}

/** A new member's first numeric value in the definition's order ("price $4.20"); null when it shows none. */
function mainValue(m: TRollUpMember, formats: ReadonlyMap<string, TValueFormat>): string | null {
  const record = (name: string) => (m.delta[name] ? m.delta[name].to : m.fields?.[name]);
  for (const [name, format] of formats) {
    if (format.type !== "money" && format.type !== "number" && format.type !== "integer") continue;
    const value = record(name);
    if (value === null || value === undefined || value === "") continue;
    return `${fieldLabel(name).toLowerCase()} ${cut(formatFieldValue(value, format), 40)}`;
  }
  return null;
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

// ---- reading the members a roll-up sums up ----

/** How many of a run's member entries are read per kind (the view shows fewer; counts are exact). */
export const MEMBERS_READ_PER_KIND = MEMBERS_SHOWN + NAMED_IN_HEADLINE;

const ZMemberRowSchema = z.object({
  runId: z.string(),
  key: z.string(),
  kind: z.enum(MEMBER_KINDS),
  materiality: z.enum(["material", "notable"]),
  delta: ZChangeDeltaSchema,
  decisions: ZChangeDecisionsSchema,
  fields: z.record(z.string(), z.unknown()).nullable(),
  total: z.coerce.number().int(),
});

export type TLoadedRollUp = { members: TRollUpMember[]; counts: TRollUpCounts };

/**
 * The member entries of each run (MemberChange, written in the same final write as the roll-up), at most
 * MEMBERS_READ_PER_KIND per kind — material first, then by key — with each kind's exact count: one query, however
 * many runs and members. A member is new when its row was first seen in that run, back when it was seen before;
 * gone and listed are its entry's presence line (docs/sets.md). Rows that do not parse are left out.
 */
export async function loadRollUpMembers(
  db: TDb | TTx,
  input: { runIds: readonly string[]; perKind?: number },
): Promise<Map<string, TLoadedRollUp>> {
  const out = new Map<string, TLoadedRollUp>();
  const runIds = [...new Set(input.runIds)];
  if (runIds.length === 0) return out;
  const perKind = input.perKind ?? MEMBERS_READ_PER_KIND;
  const rows = await db.$queryRaw<unknown[]>`
    SELECT m."runId", m.key, m.kind, m.materiality, m.delta, m.decisions, m.fields, m.total
    FROM (
      SELECT mc."runId", substr(te."entityKey", ${MEMBER_KEY_PREFIX.length + 1}::int) AS key, k.kind,
             mc.materiality::text AS materiality, mc.delta, mc.decisions, s.fields,
             row_number() OVER (PARTITION BY mc."runId", k.kind
                                ORDER BY (mc.materiality = 'material') DESC, te."entityKey") AS n,
             count(*) OVER (PARTITION BY mc."runId", k.kind) AS total
      FROM "MemberChange" mc
      JOIN "TrackedEntity" te ON te.id = mc."entityId"
      LEFT JOIN "EntityCurrentState" s ON s."entityId" = mc."entityId"
      CROSS JOIN LATERAL (
        SELECT CASE
          WHEN mc.delta -> 'presence' ->> 'to' = 'gone' THEN 'gone'
          WHEN mc.delta -> 'presence' ->> 'to' = 'listed' THEN
            CASE WHEN te."firstSeenAt" < mc."capturedAt" THEN 'back' ELSE 'new' END
          ELSE 'changed'
        END AS kind
      ) k
      WHERE mc."runId" = ANY(${runIds}::text[])
    ) m
    WHERE m.n <= ${perKind}
    ORDER BY m."runId", m.key`;
  for (const raw of rows) {
    const parsed = ZMemberRowSchema.safeParse(raw);
    if (!parsed.success) continue;
    const row = parsed.data;
    let run = out.get(row.runId);
    if (!run) {
      run = { members: [], counts: { new: 0, back: 0, changed: 0, gone: 0 } };
      out.set(row.runId, run);
    }
    run.counts[row.kind] = row.total;
    run.members.push({
      key: row.key,
      kind: row.kind,
      materiality: row.materiality,
      delta: row.delta,
      decisions: row.decisions,
      fields: row.fields,
    });
  }
  return out;
}
