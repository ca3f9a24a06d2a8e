import { z } from "zod";
import { ZTrackerStatusSchema } from "./trackers";

/** What a person spent this calendar month (UTC): Settings → Usage (docs/design.md §9). */

const count = z.number().int().min(0);

export const ZModelCountsSchema = z.object({ modelCalls: count, tokens: count });

export const ZTrackerUsageSchema = z.object({
  trackerId: z.string(),
  decision: z.string(),
  status: ZTrackerStatusSchema,
  /** Refresh runs that did their work (completed or failed), every trigger. */
  refreshes: count,
  /** Model calls and tokens of those runs, plus the tracker's setup conversation. */
  modelCalls: count,
  tokens: count,
});

export const ZModelBudgetSchema = z.object({
  /** AI_MONTHLY_TOKEN_BUDGET; null = unlimited. */
  limitTokens: count.nullable(),
  spentTokens: count,
  remainingTokens: count.nullable(),
  exhausted: z.boolean(),
  resetsAt: z.date(),
});

export const ZUsageThisMonthSchema = z.object({
  from: z.date(),
  until: z.date(),
  budget: ZModelBudgetSchema,
  /** Trackers with any use this month, the costliest first. */
  trackers: z.array(ZTrackerUsageSchema),
  /** The feed's enhancement (slot text). */
  feed: ZModelCountsSchema,
  /** Setup conversations not (or no longer) bound to a tracker. */
  unboundSetup: ZModelCountsSchema,
  total: z.object({ refreshes: count, modelCalls: count, tokens: count }),
});
export type TUsageThisMonth = z.infer<typeof ZUsageThisMonthSchema>;
export type TTrackerUsage = z.infer<typeof ZTrackerUsageSchema>;
