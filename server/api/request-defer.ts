import { after } from "next/server";
import { detachedDefer, type TDefer } from "@/server/defer";
import { trackWork } from "@/server/lifecycle/in-flight-work";
import { logger } from "@/server/logger";

/**
 * The `defer` the API layer hands to domain code (docs/design.md §6 slow path, §7 serverless hosts). Inside a
 * Next request (route handler, server component) it uses `after()`: the task starts once the response
 * is sent and the platform keeps the function alive until it settles (`waitUntil` on Vercel). Outside a
 * request scope — tests calling the tRPC fetch handler directly, scripts — `after()` throws, and the
 * task runs as a tracked detached promise instead (server/defer.ts).
 */
export function createRequestDefer(): TDefer {
  return (task) => {
    try {
      // Counted as in-flight work, so a graceful shutdown waits for it (server/lifecycle).
      after(async () => {
        try {
          await trackWork("deferred task", task);
        } catch (error) {
          logger.warn("background task failed", { error });
        }
      });
    } catch {
      logger.debug("no request scope for after(); running the task detached");
      detachedDefer(task);
    }
  };
}
