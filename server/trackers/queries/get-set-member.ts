import { z } from "zod";
import { fieldLabel, formatFieldValue, type TValueFormat } from "@/contracts/definition/format-value";
import type { TSetMemberPresence, TSetMemberResponse } from "@/contracts/set-member";
import { SET_MEMBER_NEW_MS } from "@/contracts/set-members";
import { ZRecordValueSchema } from "@/contracts/timeline";
import type { TFieldValueView } from "@/contracts/trackers";
import type { TDb, TTx } from "../../db";
import { AppError } from "../../errors";
import type { EntityCurrentState, TrackedEntity, Tracker } from "../../generated/prisma/client";
import { NOTABLE_SIGNALS, type TTrackerDefinition } from "../../intelligence/definition";
import { getLockedDefinition, getTracker } from "../../intelligence/tracker-store";
import { MEMBER_KEY_PREFIX } from "../../timeline";

export type TSetMemberInput = { userId: string; trackerId: string; key: string };

/** The fields whose value names a member (docs/sets.md: feeds have a title, listings and places a name). */
const NAME_FIELDS = ["title", "name"] as const;

export type TOwnedMember = {
  tracker: Tracker;
  definition: TTrackerDefinition;
  entity: TrackedEntity & { state: EntityCurrentState | null };
};

/**
 * One member of the person's set tracker, by its key: owner-checked first (another person's tracker is NOT_FOUND,
 * docs/design.md §9), then the locked definition must watch a set — a tracker that does not has no members, and says
 * so (details.watchesSet false) rather than answering an empty member — then the member row (TrackedEntity keyed
 * `item:<key>`, server/timeline/set-members.ts) with its state.
 */
export async function findOwnedMember(db: TDb | TTx, input: TSetMemberInput): Promise<TOwnedMember> {
  const tracker = await getTracker(db, input);
  const locked = await getLockedDefinition(db, tracker.id);
  if (!locked?.definition.set) {
    throw new AppError("NOT_FOUND", "This tracker does not watch a set, so it has no members.", {
      details: { watchesSet: false },
    });
  }
  const entity = await db.trackedEntity.findUnique({
    where: { trackerId_entityKey: { trackerId: tracker.id, entityKey: `${MEMBER_KEY_PREFIX}${input.key}` } },
    include: { state: true },
  });
  if (!entity) throw new AppError("NOT_FOUND", "This set has no member with that key.");
  return { tracker, definition: locked.definition, entity };
}

/** A member's stored record, parsed at the boundary: every value one of the record's value shapes. */
const ZStoredValuesSchema = z.record(z.string(), ZRecordValueSchema);

/**
 * The member page's head and GET /api/v1/trackers/{id}/members/{key} (docs/sets.md): the member's name, address,
 * status (listed, missing N reads, gone since), first seen, latest own entry and current fields. Four reads after the
 * owner check: the member with its state, then the set's first listing (for "new") and its latest entry together.
 */
export async function getSetMember(
  db: TDb | TTx,
  input: TSetMemberInput & { now?: Date },
): Promise<TSetMemberResponse> {
  const asOf = input.now ?? new Date();
  const { tracker, definition, entity } = await findOwnedMember(db, input);
  const [firstListing, lastChange] = await Promise.all([
    db.trackedEntity.aggregate({
      where: { trackerId: tracker.id, entityKey: { startsWith: MEMBER_KEY_PREFIX } },
      _min: { firstSeenAt: true },
    }),
    db.memberChange.findFirst({
      where: { entityId: entity.id },
      orderBy: [{ capturedAt: "desc" }, { id: "desc" }],
      select: { capturedAt: true },
    }),
  ]);
  const parsed = ZStoredValuesSchema.safeParse(entity.state?.fields ?? {});
  if (!parsed.success) {
    throw new AppError("INTERNAL", `Set member ${entity.id} is stored in an unexpected shape.`, {
      cause: parsed.error,
    });
  }
  const values = parsed.data;
  const key = entity.entityKey.slice(MEMBER_KEY_PREFIX.length);
  const formats = new Map<string, TValueFormat>(definition.fields.map((f) => [f.name, f]));
  const missingRuns = entity.state?.missingRuns ?? 0;
  const seen = entity.firstSeenAt.getTime();
  const listedFrom = firstListing._min.firstSeenAt?.getTime() ?? seen;
  return {
    tracker: { id: tracker.id, decision: tracker.decision },
    member: {
      key,
      name: memberName(values) ?? key,
      url: memberUrl(key, values, formats),
      status: presenceOf(entity.goneAt, missingRuns),
      missingRuns,
      goneAt: entity.goneAt,
      // The baseline lists every member at once: those are the set, not news (docs/sets.md, "appeared").
      isNew: seen > listedFrom && asOf.getTime() - seen < SET_MEMBER_NEW_MS,
      firstSeenAt: entity.firstSeenAt,
      lastChangeAt: lastChange?.capturedAt ?? null,
      fields: fieldViews(values, formats),
      values,
    },
    asOf,
  };
}

function presenceOf(goneAt: Date | null, missingRuns: number): TSetMemberPresence {
  if (goneAt) return "gone";
  return missingRuns > 0 ? "missing" : "listed";
}

function memberName(values: Record<string, unknown>): string | null {
  for (const name of NAME_FIELDS) {
    const value = values[name];
    if (typeof value === "string" && value.trim()) return value.trim();
  }
  return null;
}

/** An http(s) address, else null: the page links it, so nothing else (javascript:, data:) may pass. */
function webAddress(value: unknown): string | null {
  if (typeof value !== "string") return null;
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch {
    return null;
  }
}

/** The key when it is an address (a listing's product URL, a feed guid that is a link), else the first field that is. */
function memberUrl(key: string, values: Record<string, unknown>, formats: Map<string, TValueFormat>): string | null {
  const fromKey = webAddress(key);
  if (fromKey) return key;
  for (const name of orderedNames(values, formats)) {
    if (webAddress(values[name])) return values[name] as string;
  }
  return null;
}

/** Definition order first, then fields the definition no longer has; never the reserved notable signals. */
function orderedNames(values: Record<string, unknown>, formats: Map<string, TValueFormat>): string[] {
  return [...formats.keys(), ...Object.keys(values).filter((n) => !formats.has(n))].filter(
    (n) => n !== NOTABLE_SIGNALS && n in values,
  );
}

/** The member's fields formatted for people, like the members list's (list-set-members.ts). */
function fieldViews(values: Record<string, unknown>, formats: Map<string, TValueFormat>): TFieldValueView[] {
  return orderedNames(values, formats).map((name) => ({
    name,
    label: fieldLabel(name),
    text: formatFieldValue(values[name], formats.get(name)),
  }));
}
