/**
 * Next.js calls `register()` once per server process before it handles requests. The Node.js server
 * validates its configuration, opens the database and installs the graceful shutdown
 * (server/lifecycle/on-server-start.ts), exiting with one line if it cannot; the edge runtime has nothing to do.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startOrExit } = await import("./server/lifecycle/on-server-start");
  await startOrExit();
}
