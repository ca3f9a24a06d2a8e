import { z } from "zod";
import { CHANNEL_FORMS, ZChannelKindSchema } from "./notification-channel-kinds";

/** Notification channels, routing and the inbox (docs/notifications.md): client-safe schemas for tRPC and the Settings page. */

export { CHANNEL_KINDS, type TChannelKind, ZChannelKindSchema } from "./notification-channel-kinds";

export const ZCreateChannelInputSchema = z
  .object({
    kind: ZChannelKindSchema,
    name: z.string().trim().max(80).default(""),
    target: z.string().trim().min(1, "Enter an email address or a URL.").max(2000),
  })
  .superRefine((v, ctx) => {
    const problem = CHANNEL_FORMS[v.kind].targetProblem(v.target);
    if (problem) ctx.addIssue({ code: "custom", path: ["target"], message: problem });
  });
export type TCreateChannelInput = z.input<typeof ZCreateChannelInputSchema>;

export const ZChannelIdInputSchema = z.object({ channelId: z.string().min(1) });

export const ROUTINGS = ["immediate", "digest", "off"] as const;
export const ZRoutingSchema = z.enum(ROUTINGS);

const minuteOfDay = z.number().int().min(0).max(1439).nullable();

export const ZNotificationDefaultsInputSchema = z
  .object({
    material: ZRoutingSchema,
    notable: ZRoutingSchema,
    failing: z.boolean(),
    quietStartMinute: minuteOfDay,
    quietEndMinute: minuteOfDay,
    digestHour: z.number().int().min(0).max(23),
  })
  .refine((v) => (v.quietStartMinute === null) === (v.quietEndMinute === null), {
    path: ["quietEndMinute"],
    message: "Set both ends of the quiet hours, or neither.",
  });
export type TNotificationDefaultsInput = z.infer<typeof ZNotificationDefaultsInputSchema>;

/** A tracker's own routing; null follows the person's default. */
export const ZTrackerRoutingInputSchema = z.object({
  trackerId: z.string().min(1),
  material: ZRoutingSchema.nullable(),
  notable: ZRoutingSchema.nullable(),
  failing: z.boolean().nullable(),
});
export type TTrackerRoutingInput = z.infer<typeof ZTrackerRoutingInputSchema>;

export const ZInboxListInputSchema = z.object({ limit: z.number().int().min(1).max(100).default(30) });
export const ZMarkReadInputSchema = z.object({ ids: z.array(z.string().min(1)).max(200).optional() });

/** "HH:MM" ↔ minutes after midnight, for the quiet-hours inputs. */
export function minuteToClock(minute: number | null): string {
  if (minute === null) return "";
  return `${String(Math.floor(minute / 60)).padStart(2, "0")}:${String(minute % 60).padStart(2, "0")}`;
}
export function clockToMinute(clock: string): number | null {
  const m = /^(\d{1,2}):(\d{2})$/.exec(clock.trim());
  if (!m) return null;
  const minute = Number(m[1]) * 60 + Number(m[2]);
  return minute < 1440 ? minute : null;
}

/** A tracker's routing: its own choices (null = the person's default) and what they resolve to (REST and tRPC). */
export const ZTrackerRoutingResponseSchema = z.object({
  own: z.object({
    material: ZRoutingSchema.nullable(),
    notable: ZRoutingSchema.nullable(),
    failing: z.boolean().nullable(),
  }),
  effective: z.object({ material: ZRoutingSchema, notable: ZRoutingSchema, failing: z.boolean() }),
});
export const ZTrackerRoutingRequestSchema = z.object({ trackerId: z.string().min(1) });
