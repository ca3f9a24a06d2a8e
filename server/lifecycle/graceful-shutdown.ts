import { subscribe } from "node:diagnostics_channel";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import net from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { beginShutdown, runningWork } from "./in-flight-work";

/**
 * The graceful shutdown of a serving process (docs/operations.md, "Start and stop"). `next start` owns the HTTP
 * server and, with NEXT_MANUAL_SIG_HANDLE set, leaves SIGTERM/SIGINT to us; we learn about the server and
 * every request from node's `http.server.request.start` diagnostics channel (public API, no patching).
 *
 * On the first signal: stop listening (connections already open stay open), answer every request still
 * to come on them with `Connection: close`, end event streams at once (they never finish by themselves;
 * clients reconnect), wait until the requests in flight and the tracked work (in-flight-work.ts) are done
 * — at most `graceMs` — then close the idle connections and the database, and exit 0. When the grace
 * period runs out, what is left is cut and the exit code is 1.
 */

type TOpenRequest = { stream: boolean };
type TRequestState = {
  servers: Set<Server>;
  open: Map<ServerResponse, TOpenRequest>;
  draining: boolean;
  installed: boolean;
};

// On globalThis for the same reason as in-flight-work.ts: one process, possibly several module copies.
const globals = globalThis as { __bellwetherRequests?: TRequestState };
globals.__bellwetherRequests ??= { servers: new Set(), open: new Map(), draining: false, installed: false };
const state = globals.__bellwetherRequests;

const say = (line: string) => process.stdout.write(`[bellwether] ${line}\n`);
const POLL_MS = 50;
/** PGlite writes a shutdown checkpoint on close; give it this long before giving up. */
const DB_CLOSE_TIMEOUT_MS = 15_000;

function isEventStream(request: IncomingMessage): boolean {
  return (request.headers.accept ?? "").includes("text/event-stream");
}

/** Makes this request the last one on its connection; streams are ended now. */
function lastOnItsConnection(response: ServerResponse, open: TOpenRequest): void {
  if (open.stream) {
    setImmediate(() => response.destroy());
  } else if (!response.headersSent) {
    response.setHeader("connection", "close");
  }
}

/** Starts counting requests. Idempotent. */
export function trackRequests(): void {
  if (state.installed) return;
  state.installed = true;
  subscribe("http.server.request.start", (message) => {
    const { request, response, server } = message as {
      request: IncomingMessage;
      response: ServerResponse;
      server: Server;
    };
    state.servers.add(server);
    const open = { stream: isEventStream(request) };
    state.open.set(response, open);
    response.once("close", () => state.open.delete(response));
    if (state.draining) lastOnItsConnection(response, open);
  });
}

/** Requests in flight, event streams not counted (they are ended, not awaited). */
function requestsInFlight(): number {
  let count = 0;
  for (const open of state.open.values()) if (!open.stream) count++;
  return count;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export type TShutdownOptions = { graceMs: number; closeDatabase: () => Promise<void> };

/** Drains and exits. Never returns. */
export async function shutDown(signal: string, options: TShutdownOptions): Promise<never> {
  const deadline = Date.now() + options.graceMs;
  state.draining = true;
  beginShutdown();
  // net.Server#close, not http.Server#close: the latter also drops idle keep-alive connections at once,
  // racing a client that is sending its next request on one. Those requests are served, then the
  // connection closes (Connection: close).
  for (const server of state.servers) net.Server.prototype.close.call(server);
  for (const [response, open] of state.open) lastOnItsConnection(response, open);
  say(
    `${signal}: shutting down; waiting up to ${options.graceMs / 1000} s (SHUTDOWN_GRACE_MS) for ` +
      `${plural(requestsInFlight(), "request")} and ${plural(runningWork().length, "background task")} in flight`,
  );

  while ((requestsInFlight() > 0 || runningWork().length > 0) && Date.now() < deadline) await sleep(POLL_MS);

  const cutRequests = requestsInFlight();
  const cutWork = runningWork();
  const clean = cutRequests === 0 && cutWork.length === 0;
  if (!clean) {
    say(
      `grace period over: cutting ${plural(cutRequests, "request")} and ${plural(cutWork.length, "background task")}` +
        (cutWork.length > 0 ? ` (${[...new Set(cutWork)].join(", ")})` : ""),
    );
  }
  for (const server of state.servers) {
    if (clean) server.closeIdleConnections();
    else server.closeAllConnections();
  }

  let closed = false;
  try {
    await Promise.race([
      options.closeDatabase().then(() => {
        closed = true;
      }),
      sleep(DB_CLOSE_TIMEOUT_MS, undefined, { ref: false }),
    ]);
    if (closed) say("database closed; bye");
    else say(`the database did not close within ${DB_CLOSE_TIMEOUT_MS / 1000} s; exiting anyway`);
  } catch (error) {
    say(`closing the database failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  process.exit(clean && closed ? 0 : 1);
}

/** SIGTERM, SIGINT and SIGHUP start one shutdown; repeats are ignored (on Ctrl+C the terminal and npm both send one). */
export function handleStopSignals(options: TShutdownOptions): void {
  let started = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (started) return;
    started = true;
    void shutDown(signal, options);
  };
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(signal, onSignal);
}
