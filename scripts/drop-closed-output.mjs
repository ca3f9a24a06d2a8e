/**
 * Output nobody reads is dropped (docs/operations.md, "Logs"). A process whose stdout or stderr reader went away — a
 * closed pipe: `npm start | head`, a log shipper or a supervisor that died — gets EPIPE on its next write. Unhandled,
 * that error reached Next's handler for uncaught errors, which logged it to the same closed stream: a loop at full CPU
 * that served no request and no longer stopped on SIGTERM (its shutdown line is a write too). With a listener, the
 * error is only the stream's: the write is lost, everything else goes on.
 *
 * Installed on import, as early as each process allows: the launcher preloads it into the server (`--import`, before
 * Next writes its first line), instrumentation.ts imports it (a platform's plain `next start`), and so does the worker.
 */
export function dropOutputWithoutReader() {
  for (const stream of [process.stdout, process.stderr]) {
    if (!stream.listeners("error").includes(ignore)) stream.on("error", ignore);
  }
}

function ignore() {
  // Nothing to report it to: the stream that failed is where it would go.
}

dropOutputWithoutReader();
