import net from "node:net";
import { statementKind } from "./sql-counter";

/**
 * Counts the SQL statements a process outside this one (the started app) sends to PostgreSQL, at the wire: a TCP
 * proxy on 127.0.0.1 that the app's DATABASE_URL points at, forwarding every byte unchanged both ways and reading the
 * frontend protocol on its way to the server. A simple query (`Q`) is one statement; in the extended protocol each
 * `Execute` (`E`) is one, its text known from the `Parse` of the statement its portal was bound to (named prepared
 * statements are parsed once per connection and executed many times). BEGIN / COMMIT / ROLLBACK / savepoints are
 * counted apart (`control`), as sql-counter.ts does at the driver; a statement outside BEGIN … COMMIT is a
 * transaction of its own. Needed because this server has no pg_stat_statements (it must be in
 * shared_preload_libraries) and pg_stat_database's transaction counters reach the view up to 10 s late (PostgreSQL
 * 15 flushes a backend's statistics at most once a second, else when it has been idle a while).
 *
 * A connection that negotiates TLS cannot be read; it is forwarded and counted in `opaque` (the benchmark's URLs
 * carry no sslmode, so node-postgres never asks for it).
 */

const CONTROL = /^\s*(BEGIN|START\s+TRANSACTION|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE)\b/i;
const BEGIN = /^\s*(BEGIN|START\s+TRANSACTION)\b/i;
const END = /^\s*(COMMIT|END|ROLLBACK)\b(?!\s+TO\b)/i;

const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;

export type TWireCounts = {
  statements: number;
  /** BEGIN / COMMIT / ROLLBACK / savepoint statements. */
  control: number;
  /** BEGIN … COMMIT blocks plus statements run outside one (autocommit). */
  transactions: number;
  /** Connections the app opened (each is a new PostgreSQL backend). */
  connections: number;
};

export type TWireCounter = {
  /** postgresql://…@127.0.0.1:<proxy port>/<database>: what the app's DATABASE_URL should be. */
  url: string;
  readonly counts: TWireCounts;
  /** Statements by kind ("SELECT Tracker", "named bw_…") since the last `resetKinds()`. */
  kinds(): Map<string, number>;
  resetKinds(): void;
  /** performance.now() of the last message the app sent. */
  readonly lastActivity: number;
  /** Connections whose traffic could not be read (TLS). */
  readonly opaque: number;
  close(): Promise<void>;
};

export const since = (before: TWireCounts, after: TWireCounts): TWireCounts => ({
  statements: after.statements - before.statements,
  control: after.control - before.control,
  transactions: after.transactions - before.transactions,
  connections: after.connections - before.connections,
});

function cstring(buf: Buffer, at: number): [string, number] {
  const end = buf.indexOf(0, at);
  if (end < 0) return [buf.toString("utf8", at), buf.length];
  return [buf.toString("utf8", at, end), end + 1];
}

/** Starts the proxy in front of `serverUrl`'s server; the returned `url` reaches `database` through it. */
export async function startWireCounter(serverUrl: string, database: string): Promise<TWireCounter> {
  const target = new URL(serverUrl);
  const host = decodeURIComponent(target.hostname || target.searchParams.get("host") || "localhost");
  const port = Number(target.port || 5432);
  const upstreamOptions: net.NetConnectOpts = host.startsWith("/")
    ? { path: `${host}/.s.PGSQL.${port}` }
    : { host, port };
  const counts: TWireCounts = { statements: 0, control: 0, transactions: 0, connections: 0 };
  let kinds = new Map<string, number>();
  let lastActivity = performance.now();
  let opaque = 0;
  const sockets = new Set<net.Socket>();

  const server = net.createServer((client) => {
    counts.connections++;
    const upstream = net.connect(upstreamOptions);
    sockets.add(client);
    sockets.add(upstream);
    let pending: Buffer = Buffer.alloc(0);
    let started = false;
    let readable = true;
    let awaitingSsl = false;
    let inTransaction = false;
    const statements = new Map<string, string>();
    const portals = new Map<string, string>();

    const record = (text: string, name: string) => {
      if (CONTROL.test(text)) {
        counts.control++;
        if (BEGIN.test(text)) {
          counts.transactions++;
          inTransaction = true;
        } else if (END.test(text)) inTransaction = false;
        return;
      }
      counts.statements++;
      if (!inTransaction) counts.transactions++;
      const kind = name ? `named ${name}` : statementKind(text);
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    };

    const read = (chunk: Buffer) => {
      if (!readable) return;
      lastActivity = performance.now();
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      for (;;) {
        if (!started) {
          if (pending.length < 8) return;
          const length = pending.readInt32BE(0);
          if (pending.length < length) return;
          const code = pending.readInt32BE(4);
          pending = pending.subarray(length);
          if (code === SSL_REQUEST || code === GSS_REQUEST) awaitingSsl = true;
          else started = true; // the startup message (or a cancel request, after which the connection closes)
          continue;
        }
        if (pending.length < 5) return;
        const type = String.fromCharCode(pending[0] as number);
        const length = pending.readInt32BE(1);
        if (pending.length < 1 + length) return;
        const body = pending.subarray(5, 1 + length);
        pending = pending.subarray(1 + length);
        if (type === "Q") record(cstring(body, 0)[0], "");
        else if (type === "P") {
          const [name, next] = cstring(body, 0);
          statements.set(name, cstring(body, next)[0]);
        } else if (type === "B") {
          const [portal, next] = cstring(body, 0);
          portals.set(portal, cstring(body, next)[0]);
        } else if (type === "E") {
          const name = portals.get(cstring(body, 0)[0]) ?? "";
          record(statements.get(name) ?? "?", name);
        }
      }
    };

    client.on("data", (chunk: Buffer) => {
      read(chunk);
      if (!upstream.write(chunk)) client.pause();
    });
    upstream.on("drain", () => client.resume());
    upstream.on("data", (chunk: Buffer) => {
      if (awaitingSsl) {
        awaitingSsl = false;
        if (chunk[0] === "S".charCodeAt(0) || chunk[0] === "G".charCodeAt(0)) {
          readable = false;
          opaque++;
        }
      }
      if (!client.write(chunk)) upstream.pause();
    });
    client.on("drain", () => upstream.resume());
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("close", end);
    upstream.on("close", end);
    client.on("error", end);
    upstream.on("error", end);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const proxyPort = (server.address() as net.AddressInfo).port;
  const url = new URL(serverUrl);
  url.hostname = "127.0.0.1";
  url.port = String(proxyPort);
  url.pathname = `/${database}`;
  url.searchParams.delete("host");
  return {
    url: url.toString(),
    get counts() {
      return { ...counts };
    },
    kinds: () => new Map(kinds),
    resetKinds: () => {
      kinds = new Map();
    },
    get lastActivity() {
      return lastActivity;
    },
    get opaque() {
      return opaque;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
