/**
 * Next.js calls `register()` once per server process before it handles requests. The Node.js server
 * validates its configuration, opens the database and installs the graceful shutdown here
 * (server/lifecycle/on-server-start.ts); the edge runtime has nothing to do. Next only logs an error
 * thrown from here and serves on, so anything unexpected stops the process here too: one line, exit 1.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  try {
    const { onServerStart } = await import("./server/lifecycle/on-server-start");
    await onServerStart();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`Cannot start the server: ${message.split("\n")[0]}\n`);
    process.exit(1);
  }
}
