import type { z } from "zod";
import type { ZTimelineRequestSchema } from "@/contracts/trackers";

/** A validated timeline request as the domain call takes it (absent bounds and cursor left out, not undefined). */
export function timelineWindow(input: z.infer<typeof ZTimelineRequestSchema>) {
  return {
    trackerId: input.trackerId,
    limit: input.limit,
    ...(input.cursor ? { cursor: input.cursor } : {}),
    ...(input.from ? { from: input.from } : {}),
    ...(input.to ? { to: input.to } : {}),
  };
}
