/**
 * Next.js calls `register()` once per server process before it handles requests. The Node.js server drops output
 * nobody reads (scripts/drop-closed-output.mjs, also for a plain `next start`), validates its configuration, opens
 * the database and installs the graceful shutdown
 * (server/lifecycle/on-server-start.ts), exiting with one line if it cannot; it writes each request's client address
 * into a header the sign-in limits read (server/auth/client-address.ts); then it starts its own scheduler
 * unless SCHEDULER turns it off (server/triggers/server-scheduler.ts, docs/scheduling.md). The edge runtime has
 * nothing to do.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  await import("./scripts/drop-closed-output.mjs");
  const { startOrExit } = await import("./server/lifecycle/on-server-start");
  await startOrExit();
  const { installClientAddressHeader } = await import("./server/auth/client-address");
  installClientAddressHeader();
  const { startServerScheduler } = await import("./server/triggers/server-scheduler");
  await startServerScheduler();
}
