import { z } from "zod";
import { CAPABILITY_NAMES } from "./capability-names";
import { ZIdSchema, zText } from "./common";
import { zRequestDate } from "./dates";
import type { TValueFormat } from "./definition/format-value";
import { SCHEDULE_MINUTES } from "./schedule";
import { ZChangeMaterialitySchema, ZCurrentStateSchema, ZTimelineEntrySchema } from "./timeline";

/**
 * One request and one response schema per tracker operation, shared by the tRPC routers (`.input`/`.output`), the
 * public REST API (/api/v1, validated by the same schemas, documented in its OpenAPI document) and the UI.
 */

// ── building blocks ────────────────────────────────────────────────────────────────────────────────────────────

export const TRACKER_STATUSES = ["draft", "active", "paused", "archived"] as const;
export const ZTrackerStatusSchema = z.enum(TRACKER_STATUSES);

export const ZTrackerIdRequestSchema = z.object({ trackerId: ZIdSchema });

export const ZScheduleMinutesSchema = z.coerce
  .number()
  .int()
  .refine((m) => (SCHEDULE_MINUTES as readonly number[]).includes(m), {
    message: `Choose one of ${SCHEDULE_MINUTES.join(", ")} minutes.`,
  })
  .describe("Minutes between scheduled refreshes");

export const ZTrackerSummarySchema = z
  .object({
    id: z.string(),
    decision: z.string().describe("The question the tracker serves"),
    capability: z.string().describe("The bound capability, e.g. web.scrape"),
    target: z.string().describe("What the capability is bound to (URL or place), for display"),
    status: ZTrackerStatusSchema,
    failing: z.boolean().describe("Active and failed its last refreshes in a row"),
    lastError: z.string().nullable(),
    consecutiveFailures: z.number().int(),
    needsAttention: z
      .boolean()
      .describe("Active, its pages come, but a field that read before has read nothing for several runs in a row"),
    attentionReason: z
      .string()
      .nullable()
      .describe(
        'Why it needs attention, in words: "price has read nothing for 3 runs: `#pro .price` matches nothing…"',
      ),
    fields: z
      .object({
        read: z.number().int().describe("Fields that read a value at the last run"),
        total: z.number().int().describe("Fields the definition has"),
        missing: z.array(z.string()).describe("Fields that read before and read nothing now"),
      })
      .nullable()
      .describe('"reads N of M fields"; null until a run has filled the record'),
    scheduleMinutes: z.number().int(),
    lockedVersion: z.number().int().nullable(),
    lastRunAt: z.date().nullable(),
    nextRunAt: z.date().nullable(),
    due: z.boolean().describe("Active and its next run time has come (a scheduler picks it up within its poll)"),
    overdue: z
      .boolean()
      .describe("Active and more than two of its intervals past its next run: no scheduler is refreshing it"),
    lastMaterialAt: z.date().nullable(),
    createdAt: z.date(),
  })
  .meta({ id: "TrackerSummary" });
export type TTrackerSummary = z.infer<typeof ZTrackerSummarySchema>;

/** How a field's values read for people (contracts/definition/format-value.ts): its type, unit and currency. */
export const ZValueFormatSchema = z.object({
  type: z.enum(["number", "integer", "string", "boolean", "enum", "string_list", "money"]),
  unit: z.string().optional(),
  currency: z.string().optional(),
}) satisfies z.ZodType<TValueFormat>;

/** A bound value a rule decides with although its file no longer gives it (server/context/kept-context-values.ts). */
export const ZKeptContextValueViewSchema = z.object({
  name: z.string().describe("The bound value's name, e.g. our_price"),
  value: z.string().describe("The kept value as the field reads, e.g. $45.00"),
  fileName: z.string().describe("The file it was read from"),
  reason: z.enum(["removed", "replaced"]).describe("The file was deleted, or replaced by one that no longer states it"),
  since: z.date().nullable().describe("When the file was deleted or replaced"),
});
export type TKeptContextValueView = z.infer<typeof ZKeptContextValueViewSchema>;

export const ZDefinitionFieldViewSchema = z.object({
  name: z.string(),
  type: z.string(),
  description: z.string(),
  rule: z.string().describe("The materiality rule in plain language"),
  format: ZValueFormatSchema.describe("The field's type, unit and currency, for formatting its values"),
  kept: z
    .array(ZKeptContextValueViewSchema)
    .optional()
    .describe("Bound values this field's rules decide with after their file went, until the tracker is edited"),
});
export type TDefinitionFieldView = z.infer<typeof ZDefinitionFieldViewSchema>;

export const ZDefinitionVersionViewSchema = z
  .object({
    version: z.number().int(),
    lockedAt: z.date().nullable(),
    inForce: z.boolean(),
    identityRule: z.string(),
    fields: z.array(ZDefinitionFieldViewSchema),
  })
  .meta({ id: "DefinitionVersion" });
export type TDefinitionVersionView = z.infer<typeof ZDefinitionVersionViewSchema>;

export const ZDefinitionVersionWithChangesSchema = ZDefinitionVersionViewSchema.extend({
  changes: z.array(z.string()).describe("What changed from the version before"),
});

export const ZTrackerStateSchema = ZCurrentStateSchema.extend({ entityKey: z.string() }).meta({ id: "TrackerState" });

export const ZRunStepViewSchema = z.object({
  step: z.string(),
  status: z.string(),
  ms: z.number(),
  detail: z.string().optional(),
});
export type TRunStepView = z.infer<typeof ZRunStepViewSchema>;

export const ZRefreshRunViewSchema = z
  .object({
    id: z.string(),
    trigger: z.string(),
    status: z.string(),
    outcome: z.string().nullable(),
    summary: z.string().nullable(),
    modelCalls: z.number().int(),
    durationMs: z.number().nullable(),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    steps: z.array(ZRunStepViewSchema),
    definitionVersion: z.number().int().nullable(),
    createdAt: z.date(),
  })
  .meta({ id: "RefreshRun" });
export type TRefreshRunView = z.infer<typeof ZRefreshRunViewSchema>;

/**
 * Runs counted per UTC day instead of kept one by one: scheduled checks that found the page unchanged (counted as they
 * happen) and older unchanged or skipped runs retention summed past RUN_RETENTION_DAYS.
 */
export const ZPrunedRunDaySchema = z
  .object({
    day: z.string().describe("UTC day, YYYY-MM-DD"),
    unchanged: z.number().int().describe("Completed checks that found the page unchanged"),
    skipped: z
      .number()
      .int()
      .describe("Runs skipped: another refresh was in flight, or the host asked us to wait (deferred)"),
    modelCalls: z.number().int(),
    tokens: z.number().int(),
  })
  .meta({ id: "PrunedRunDay" });
export type TPrunedRunDay = z.infer<typeof ZPrunedRunDaySchema>;

export const ZRefreshResultSchema = z
  .object({
    runId: z.string(),
    status: z.enum(["completed", "failed", "skipped", "running"]),
    outcome: z.string().nullable(),
    summary: z.string().describe('One line for people: "no change", "material: …"'),
    modelCalls: z.number().int(),
    error: z.object({ code: z.string(), message: z.string(), retryable: z.boolean() }).nullable(),
    replayed: z.boolean().describe("An earlier request with the same Idempotency-Key answered; nothing was done now"),
  })
  .meta({ id: "RefreshResult" });

export const ZTimelinePageSchema = z
  .object({ items: z.array(ZTimelineEntrySchema), nextCursor: z.string().nullable() })
  .meta({ id: "TimelinePage" });

// ── operations ─────────────────────────────────────────────────────────────────────────────────────────────────

/**
 * Every list of trackers is paged, newest first (createdAt, then id): GET /api/v1/trackers and tracker.list answer
 * at most `limit` (100 unless asked, 500 at most) and say where to go on (docs/api.md, docs/trackers.md).
 */
export const TRACKERS_API_DEFAULT_LIMIT = 100;
export const TRACKERS_API_MAX_LIMIT = 500;
/** An opaque page cursor: a creation instant and an id, base64url. */
export const TRACKERS_CURSOR_MAX = 200;
const ZTrackersCursorSchema = z.string().max(TRACKERS_CURSOR_MAX).nullish();

export const ZListTrackersRequestSchema = z.object({
  status: z.enum([...TRACKER_STATUSES, "failing", "needs_attention"]).optional(),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(TRACKERS_API_MAX_LIMIT)
    .default(TRACKERS_API_DEFAULT_LIMIT)
    .describe(`At most this many trackers (default ${TRACKERS_API_DEFAULT_LIMIT}, at most ${TRACKERS_API_MAX_LIMIT})`),
  cursor: ZTrackersCursorSchema.describe("nextCursor of the previous page"),
});
export const ZListTrackersResponseSchema = z.object({
  trackers: z.array(ZTrackerSummarySchema),
  nextCursor: z.string().nullable().describe("Pass as cursor for the next page; null on the last"),
});

/**
 * The create body's capability input and definition pass the edge as objects and are checked in full by the server:
 * the input by the bound capability, the definition with the checks only the server can run (docs/api.md). The OpenAPI
 * document shows their full shape in their place (server/api/rest/openapi.ts): the registry's input schemas and
 * contracts/definition/tracker-definition-schema.ts.
 */
export const ZCapabilityInputBodySchema = z
  .record(z.string(), z.unknown())
  .describe('The capability input, e.g. {"url": "https://…"} or {"placeId": "…"}');
export const ZDefinitionBodySchema = z
  .record(z.string(), z.unknown())
  .describe("The tracker definition: fields, identityRule, materiality (validated in full on create)");

export const ZCreateTrackerRequestSchema = z.object({
  decision: zText({ min: 1, max: 500, label: "The decision" }).describe("The question this tracker serves"),
  capability: z.enum(CAPABILITY_NAMES),
  capabilityInput: ZCapabilityInputBodySchema,
  definition: ZDefinitionBodySchema,
  scheduleMinutes: ZScheduleMinutesSchema.optional(),
});
export const ZCreateTrackerResponseSchema = z.object({
  tracker: ZTrackerSummarySchema,
  definition: ZDefinitionVersionViewSchema.nullable(),
});

export const ZGetTrackerRequestSchema = ZTrackerIdRequestSchema;
/** The tracker page header (tRPC tracker.get): the tracker, its versions and the current state. */
export const ZGetTrackerResponseSchema = z.object({
  tracker: ZTrackerSummarySchema,
  definition: ZDefinitionVersionViewSchema.nullable(),
  versions: z.array(ZDefinitionVersionWithChangesSchema),
});

/** What the tracker stores for replaying definition edits (docs/replay.md): captures and their compressed bytes. */
export const ZStoredHistorySchema = z.object({ captures: z.number().int(), bytes: z.number().int() });
export type TStoredHistory = z.infer<typeof ZStoredHistorySchema>;

export const ZTrackerOverviewSchema = ZGetTrackerResponseSchema.extend({
  state: ZTrackerStateSchema.nullable(),
  storedHistory: ZStoredHistorySchema,
  keepingWatch: z.boolean().describe("Some scheduler (this server's, a worker, the cron route) was seen lately"),
});

export const ZTrackerStateRequestSchema = ZTrackerIdRequestSchema;
export const ZTrackerStateResponseSchema = z.object({ trackerId: z.string(), state: ZTrackerStateSchema.nullable() });

export const ZTimelineRequestSchema = ZTrackerIdRequestSchema.extend({
  cursor: z.string().max(500).nullish().describe("nextCursor of the previous page"),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  from: zRequestDate("from").nullish().describe("Inclusive start, ISO 8601"),
  to: zRequestDate("to").nullish().describe("Exclusive end, ISO 8601"),
}).refine((q) => !(q.from && q.to && q.from > q.to), {
  message: "The start date must not be after the end date.",
  path: ["from"],
});
export const ZTimelineResponseSchema = ZTimelinePageSchema;

export const ZListRunsRequestSchema = ZTrackerIdRequestSchema.extend({
  limit: z.coerce.number().int().min(1).max(100).default(20),
});
export const ZListRunsResponseSchema = z.object({
  runs: z.array(ZRefreshRunViewSchema),
  prunedDays: z
    .array(ZPrunedRunDaySchema)
    .describe(
      "Runs counted per day instead of kept: scheduled unchanged checks, and older unchanged or skipped runs once pruned (newest first, at most `limit` days)",
    ),
});
export const ZPrunedRunDaysRequestSchema = ZListRunsRequestSchema;

export const ZRefreshTrackerRequestSchema = ZTrackerIdRequestSchema.extend({
  idempotencyKey: zText({ min: 1, max: 200, label: "The idempotency key" })
    .optional()
    .describe("The same key again returns the first run instead of refreshing"),
});
export const ZRefreshTrackerResponseSchema = z.object({ run: ZRefreshResultSchema });

/** tracker.events (SSE): one tracker's live events; `lastEventId` resumes after an event id (or a time, in ms). */
export const ZTrackerEventsRequestSchema = ZTrackerIdRequestSchema.extend({
  lastEventId: z
    .string()
    .regex(/^\d{1,20}$/)
    .nullish(),
});

export const ZSetScheduleRequestSchema = ZTrackerIdRequestSchema.extend({ scheduleMinutes: ZScheduleMinutesSchema });
export const ZSetStatusRequestSchema = ZTrackerIdRequestSchema.extend({
  status: z.enum(["active", "paused", "archived"]).describe("active resumes, paused pauses, archived archives"),
});
export const ZTrackerResponseSchema = z.object({ tracker: ZTrackerSummarySchema });

export const ZSetStatusManyRequestSchema = z.object({
  trackerIds: z.array(ZIdSchema).min(1).max(500),
  status: z.enum(["active", "paused", "archived"]).describe("active resumes, paused pauses, archived archives (final)"),
});
export const ZSetStatusManyResponseSchema = z.object({
  updated: z.array(z.string()),
  refused: z.array(z.object({ trackerId: z.string(), message: z.string() })),
});

export const ZNumericSeriesRequestSchema = ZTrackerIdRequestSchema;
/** One chart per numeric field: the recorded timeline points, and what the source says now (observed). */
export const ZNumericSeriesSchema = z.object({
  field: z.string(),
  label: z.string(),
  format: ZValueFormatSchema.nullable(),
  points: z.array(
    z.object({ at: z.date(), value: z.number(), materiality: ZChangeMaterialitySchema, changeId: z.string() }),
  ),
  now: z.object({ at: z.date(), value: z.number() }).nullable().describe("The observed value at the last check"),
});
export type TNumericSeries = z.infer<typeof ZNumericSeriesSchema>;
export const ZNumericSeriesResponseSchema = z.array(ZNumericSeriesSchema);

// ── the trackers list page ─────────────────────────────────────────────────────────────────────────────────────

/** One field as people read it: "Price" · "$39.50" (contracts/definition/format-value.ts). */
export const ZFieldValueViewSchema = z.object({
  name: z.string(),
  label: z.string(),
  text: z.string(),
});
export type TFieldValueView = z.infer<typeof ZFieldValueViewSchema>;

/** The latest material change: when, and each field that moved ("$39.50 → $35.00 (−11%)"). */
export const ZLastChangeViewSchema = z.object({
  capturedAt: z.date(),
  fields: z.array(ZFieldValueViewSchema),
});
export type TLastChangeView = z.infer<typeof ZLastChangeViewSchema>;

/** A tracker in the list: its summary, what its source says now (main fields) and its last material change. */
export const ZTrackerListItemSchema = ZTrackerSummarySchema.extend({
  values: z.array(ZFieldValueViewSchema),
  lastChange: ZLastChangeViewSchema.nullable(),
});
export type TTrackerListItem = z.infer<typeof ZTrackerListItemSchema>;

/** An unfinished setup: a draft tracker (never locked), resumable in its setup chat, discarded when stale. */
export const ZDraftListItemSchema = z.object({
  id: z.string(),
  decision: z.string(),
  capability: z.string(),
  target: z.string(),
  createdAt: z.date(),
  /** The last time the draft or its conversation changed. */
  touchedAt: z.date(),
  /** When it is discarded automatically unless touched again. */
  discardAfter: z.date(),
  /** The setup conversation Resume opens (null: made without one; it can only be discarded). */
  setupSessionId: z.string().nullable(),
});
export type TDraftListItem = z.infer<typeof ZDraftListItemSchema>;

/**
 * The trackers page's "Show" choices (docs/trackers.md, "The trackers list"): current = not archived; failing and
 * needs attention as the tracker page says them. Applied on the server with the search.
 */
export const TRACKER_LIST_FILTERS = [
  "current",
  "active",
  "failing",
  "needs_attention",
  "paused",
  "archived",
  "all",
] as const;
export type TTrackerListFilter = (typeof TRACKER_LIST_FILTERS)[number];
export const TRACKERS_PAGE_SIZE = 50;
export const TRACKERS_PAGE_MAX = 100;
export const TRACKERS_SEARCH_MAX = 200;

/** tracker.listView: one page of the trackers page's list, filtered and searched on the server. */
export const ZTrackersListRequestSchema = z.object({
  show: z.enum(TRACKER_LIST_FILTERS).default("current"),
  q: zText({ max: TRACKERS_SEARCH_MAX, label: "The search" })
    .trim()
    .optional()
    .describe("Words in the decision or the target (address, place, search), case-insensitive"),
  cursor: ZTrackersCursorSchema.describe("nextCursor of the previous page (same show and q)"),
  limit: z.coerce.number().int().min(1).max(TRACKERS_PAGE_MAX).default(TRACKERS_PAGE_SIZE),
});
export type TTrackersListRequest = z.infer<typeof ZTrackersListRequestSchema>;

export const ZTrackersListViewSchema = z.object({
  trackers: z.array(ZTrackerListItemSchema),
  /** Draft trackers never locked, newest work first (the first page only, at most TRACKERS_PAGE_MAX). */
  drafts: z.array(ZDraftListItemSchema),
  /** Trackers matching the filter and the search, over all pages. */
  total: z.number().int(),
  /** Trackers per filter, within the search (what the "Show" choices say). */
  counts: z.record(z.enum(TRACKER_LIST_FILTERS), z.number().int()),
  nextCursor: z.string().nullable(),
  /** The instant the view was read: relative times ("2 h ago") are computed from it on server and client alike. */
  asOf: z.date(),
});
export type TTrackersListView = z.infer<typeof ZTrackersListViewSchema>;
export const ZTrackersListResponseSchema = ZTrackersListViewSchema;

export const ZDiscardDraftRequestSchema = ZTrackerIdRequestSchema;
export const ZDiscardDraftResponseSchema = z.object({ trackerId: z.string() });

export const ZListVersionsRequestSchema = ZTrackerIdRequestSchema;
export const ZListVersionsResponseSchema = z.object({ versions: z.array(ZDefinitionVersionWithChangesSchema) });
