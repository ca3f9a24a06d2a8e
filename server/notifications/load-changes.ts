import type { TValueFormat } from "@/contracts/definition/format-value";
import { ZChangeDecisionsSchema, ZChangeDeltaSchema } from "@/contracts/timeline";
import { getCapability } from "../capabilities/registry";
import type { TDb, TTx } from "../db";
import { parseStoredEnhancement } from "../enhancement/enhancement-manager";
import { parseDefinition } from "../intelligence/definition";
import { isRollUpDelta, loadRollUpMembers, setRollUpView } from "../timeline/set-roll-up-view";
import { type TNoticeChange, toNoticeChange } from "./render-message";

/**
 * The changes of one person as notices: fields formatted by the definition version that judged them, the cached
 * enhancement's "why" slot when the model wrote one (rules mode has none, and the notice reads the same without
 * it). A set tracker's roll-up is read as one (docs/notifications.md, "A set's notice"): its headline and the members
 * of its run, each linking to its page. Only changes of trackers `userId` owns come back (isolation: a key of someone
 * else's change finds nothing).
 */
export async function loadNoticeChanges(
  db: TDb | TTx,
  input: { userId: string; changeIds: string[]; appUrl: string },
): Promise<Map<string, TNoticeChange>> {
  if (input.changeIds.length === 0) return new Map();
  const rows = await db.entityChange.findMany({
    where: { id: { in: input.changeIds }, tracker: { userId: input.userId } },
    select: {
      id: true,
      trackerId: true,
      runId: true,
      materiality: true,
      capturedAt: true,
      delta: true,
      decisions: true,
      definitionVersion: true,
      tracker: { select: { decision: true, capability: true } },
    },
    orderBy: [{ capturedAt: "asc" }, { id: "asc" }],
  });
  const pairs = [...new Map(rows.map((r) => [`${r.trackerId}:${r.definitionVersion}`, r])).values()];
  const definitions = pairs.length
    ? await db.trackerDefinition.findMany({
        where: { OR: pairs.map((r) => ({ trackerId: r.trackerId, version: r.definitionVersion })) },
        select: { trackerId: true, version: true, definition: true },
      })
    : [];
  const formats = new Map<string, Map<string, TValueFormat>>();
  const sets = new Set<string>();
  for (const d of definitions) {
    const parsed = parseDefinition(d.definition);
    if (!parsed.ok) continue;
    formats.set(`${d.trackerId}:${d.version}`, new Map(parsed.definition.fields.map((f) => [f.name, f])));
    if (parsed.definition.set) sets.add(`${d.trackerId}:${d.version}`);
  }
  const isSet = (r: (typeof rows)[number]) => sets.has(`${r.trackerId}:${r.definitionVersion}`);
  const members = await loadRollUpMembers(db, { runIds: rows.filter(isSet).map((r) => r.runId) });
  const stored = await db.feedEnhancement.findUnique({ where: { userId: input.userId }, select: { result: true } });
  const enhancement = parseStoredEnhancement(stored?.result, input.userId);
  const out = new Map<string, TNoticeChange>();
  for (const r of rows) {
    // JSON columns are parsed at the boundary; a row that does not parse is reported without its fields.
    const delta = ZChangeDeltaSchema.safeParse(r.delta);
    const decisions = ZChangeDecisionsSchema.safeParse(r.decisions);
    const why = enhancement?.slotFills[`change:${r.id}`]?.why ?? null;
    const fieldFormats = formats.get(`${r.trackerId}:${r.definitionVersion}`) ?? new Map<string, TValueFormat>();
    const loaded = members.get(r.runId) ?? null;
    const set =
      isSet(r) && delta.success && isRollUpDelta(delta.data)
        ? setRollUpView({
            trackerId: r.trackerId,
            delta: delta.data,
            members: loaded?.members ?? null,
            counts: loaded?.counts ?? null,
            formats: fieldFormats,
            noun: getCapability(r.tracker.capability)?.draftSet?.member ?? null,
          })
        : null;
    out.set(
      r.id,
      toNoticeChange(
        {
          id: r.id,
          trackerId: r.trackerId,
          materiality: r.materiality,
          capturedAt: r.capturedAt,
          delta: delta.success ? delta.data : {},
          decisions: decisions.success ? decisions.data : {},
        },
        r.tracker,
        { formats: fieldFormats, appUrl: input.appUrl, insight: why, set },
      ),
    );
  }
  return out;
}
