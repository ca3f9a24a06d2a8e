/** The part of GET /api/health the demo reads (server/system/check-health.ts). */
type THealthScheduler = { scheduler?: { running?: boolean; reason?: string } };

/**
 * The line the demo prints once the app answers: whether the app's own scheduler keeps watch (docs/scheduling.md,
 * SCHEDULER=auto|on|off) — it refreshes due trackers by itself, so the demo calls no cron route.
 */
export function schedulerNote(health: unknown): string {
  const scheduler = (health as THealthScheduler | null)?.scheduler;
  const why = scheduler?.reason ? ` (${scheduler.reason})` : "";
  if (scheduler?.running) return `the app's own scheduler keeps watch${why}: due trackers refresh on their schedule`;
  return `the app's scheduler is not running${why}: the trackers refresh on the demo's ticks only`;
}
