import type { TValueFormat } from "@/contracts/definition/format-value";
import { ZChangeDecisionsSchema, ZChangeDeltaSchema } from "@/contracts/timeline";
import type { TDb, TTx } from "../db";
import { parseStoredEnhancement } from "../enhancement/enhancement-manager";
import { parseDefinition } from "../intelligence/definition";
import { type TNoticeChange, toNoticeChange } from "./render-message";

/**
 * The changes of one person as notices: fields formatted by the definition version that judged them, the cached
 * enhancement's "why" slot when the model wrote one (rules mode has none, and the notice reads the same without
 * it). Only changes of trackers `userId` owns come back (isolation: a key of someone else's change finds nothing).
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
      materiality: true,
      capturedAt: true,
      delta: true,
      decisions: true,
      definitionVersion: true,
      tracker: { select: { decision: true } },
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
  for (const d of definitions) {
    const parsed = parseDefinition(d.definition);
    if (parsed.ok)
      formats.set(`${d.trackerId}:${d.version}`, new Map(parsed.definition.fields.map((f) => [f.name, f])));
  }
  const stored = await db.feedEnhancement.findUnique({ where: { userId: input.userId }, select: { result: true } });
  const enhancement = parseStoredEnhancement(stored?.result, input.userId);
  const out = new Map<string, TNoticeChange>();
  for (const r of rows) {
    // JSON columns are parsed at the boundary; a row that does not parse is reported without its fields.
    const delta = ZChangeDeltaSchema.safeParse(r.delta);
    const decisions = ZChangeDecisionsSchema.safeParse(r.decisions);
    const why = enhancement?.slotFills[`change:${r.id}`]?.why ?? null;
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
        {
          formats: formats.get(`${r.trackerId}:${r.definitionVersion}`) ?? new Map(),
          appUrl: input.appUrl,
          insight: why,
        },
      ),
    );
  }
  return out;
}
