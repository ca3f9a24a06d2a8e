/**
 * Talking about a PostgreSQL connection in words an operator can act on: where it goes without the
 * credentials, and why it failed — never a raw driver code (P2010, ECONNREFUSED) and never the URL
 * (it may carry a password). Light on purpose: the `npm start` launcher loads it, not the Prisma client.
 */

/** `host:port/database` — never user, password or query parameters. */
export function describePostgresUrl(url: string): string {
  try {
    const u = new URL(url);
    const socketHost = u.searchParams.get("host");
    const host = u.hostname || (socketHost?.startsWith("/") ? socketHost : "localhost");
    return `${host}:${u.port || "5432"}${decodeURIComponent(u.pathname) || "/"}`;
  } catch {
    return "(unparseable DATABASE_URL)";
  }
}

/**
 * Why a connection failed. Understands errors from `pg` and node's sockets (SQLSTATE / errno in `code`)
 * and Prisma's driver-adapter errors (`meta.driverAdapterError.cause`). `transient` says whether waiting
 * could help (server still starting, network not up yet).
 */
export type TConnectionProblem = { reason: string; transient: boolean };

const BY_CODE: Record<string, TConnectionProblem> = {
  ECONNREFUSED: {
    reason: "connection refused (check that PostgreSQL runs there and that the host and port are right)",
    transient: true,
  },
  ENOTFOUND: { reason: "the host name does not resolve (check the host in DATABASE_URL)", transient: true },
  EAI_AGAIN: { reason: "the host name could not be resolved (DNS not answering)", transient: true },
  ETIMEDOUT: {
    reason: "no answer from the server in time (check the host, the port and any firewall)",
    transient: true,
  },
  EHOSTUNREACH: { reason: "the host is unreachable from here", transient: true },
  ENETUNREACH: { reason: "the network is unreachable from here", transient: true },
  ECONNRESET: { reason: "the server closed the connection while it was being set up", transient: true },
  "57P03": { reason: "the server is still starting up", transient: true },
  "57P01": { reason: "the server is shutting down (or an administrator ended the connection)", transient: true },
  "57P02": { reason: "the server crashed and is restarting", transient: true },
  "53300": { reason: "the server has no free connections left", transient: true },
  "28P01": { reason: "password authentication failed (check the user and password in DATABASE_URL)", transient: false },
  "28000": {
    reason: "the server does not accept this user from this host (check the user in DATABASE_URL and pg_hba.conf)",
    transient: false,
  },
  "3D000": {
    reason: "the database does not exist (create it, or fix the database name in DATABASE_URL)",
    transient: false,
  },
  "42501": { reason: "the user may not connect to or read this database (permission denied)", transient: false },
  DEPTH_ZERO_SELF_SIGNED_CERT: {
    reason: "the server's TLS certificate is self-signed and not trusted (adjust sslmode in DATABASE_URL)",
    transient: false,
  },
  SELF_SIGNED_CERT_IN_CHAIN: {
    reason: "the server's TLS certificate chain is not trusted (adjust sslmode in DATABASE_URL)",
    transient: false,
  },
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: {
    reason: "the server's TLS certificate could not be verified (adjust sslmode in DATABASE_URL)",
    transient: false,
  },
};

/** Prisma 7 driver-adapter error kinds (`@prisma/driver-adapter-utils`) that carry no SQLSTATE. */
const BY_ADAPTER_KIND: Record<string, TConnectionProblem> = {
  DatabaseNotReachable: {
    reason: "no server answers there (check that PostgreSQL runs there and that the host and port are right)",
    transient: true,
  },
  DatabaseDoesNotExist: BY_CODE["3D000"] as TConnectionProblem,
  DatabaseAccessDenied: BY_CODE["28000"] as TConnectionProblem,
  AuthenticationFailed: BY_CODE["28P01"] as TConnectionProblem,
  TlsConnectionError: { reason: "the TLS connection failed (check sslmode in DATABASE_URL)", transient: false },
  ConnectionClosed: BY_CODE.ECONNRESET as TConnectionProblem,
  SocketTimeout: BY_CODE.ETIMEDOUT as TConnectionProblem,
  TooManyConnections: BY_CODE["53300"] as TConnectionProblem,
};

/** Prisma's own codes for a lost server, raised without a driver-adapter cause. */
const BY_PRISMA_CODE: Record<string, TConnectionProblem> = {
  P1001: BY_ADAPTER_KIND.DatabaseNotReachable as TConnectionProblem,
  P1002: BY_CODE.ETIMEDOUT as TConnectionProblem,
  P1017: BY_CODE.ECONNRESET as TConnectionProblem,
};

/** node-postgres' own words for a connection that broke or never came (they carry no code). */
const PG_CONNECTION_MESSAGES: [RegExp, TConnectionProblem][] = [
  [/^Connection terminated/, BY_CODE.ECONNRESET as TConnectionProblem],
  [/^timeout exceeded when trying to connect/, BY_CODE.ETIMEDOUT as TConnectionProblem],
  [/^Client has encountered a connection error and is not queryable/, BY_CODE.ECONNRESET as TConnectionProblem],
];

type TErrorLike = {
  code?: unknown;
  message?: unknown;
  errors?: unknown;
  severity?: unknown;
  meta?: { driverAdapterError?: { cause?: { kind?: unknown; originalCode?: unknown } } };
};

function asErrorLike(error: unknown): TErrorLike {
  return (typeof error === "object" && error !== null ? error : {}) as TErrorLike;
}

/** What Prisma's driver adapter says about the connection (SQLSTATE or its own kind), if anything. */
function adapterProblem(e: TErrorLike): TConnectionProblem | undefined {
  const cause = e.meta?.driverAdapterError?.cause;
  if (typeof cause?.originalCode === "string" && cause.originalCode in BY_CODE) return BY_CODE[cause.originalCode];
  if (typeof cause?.kind === "string" && cause.kind in BY_ADAPTER_KIND) return BY_ADAPTER_KIND[cause.kind];
  return undefined;
}

/**
 * The problem when `error` is the database connection failing on a request — Prisma's driver-adapter and
 * connection errors, a PostgreSQL error from the server (`severity` set: starting up, shutting down, no free
 * connections) or node-postgres' broken-connection messages, itself or as the `cause` of the error that wraps it
 * (better-auth's "Failed to get session") — and undefined for anything else. Stricter than describeConnectionError:
 * a bare socket error (ECONNREFUSED with no driver around it) may come from any service (SMTP, a fetched page), so
 * it is not taken for the database.
 */
export function findConnectionProblem(error: unknown): TConnectionProblem | undefined {
  let current = error;
  for (let depth = 0; depth < 5; depth++) {
    const found = ownConnectionProblem(asErrorLike(current));
    if (found) return found;
    if (!(current instanceof Error) || current.cause === undefined) return undefined;
    current = current.cause;
  }
  return undefined;
}

function ownConnectionProblem(e: TErrorLike): TConnectionProblem | undefined {
  const fromAdapter = adapterProblem(e);
  if (fromAdapter) return fromAdapter;
  if (typeof e.code === "string") {
    if (e.code in BY_PRISMA_CODE) return BY_PRISMA_CODE[e.code];
    if (typeof e.severity === "string" && e.code in BY_CODE) return BY_CODE[e.code];
  }
  const message = typeof e.message === "string" ? e.message : "";
  return PG_CONNECTION_MESSAGES.find(([pattern]) => pattern.test(message))?.[1];
}

function codeOf(error: TErrorLike): string | undefined {
  if (typeof error.code === "string" && error.code in BY_CODE) return error.code;
  // Several addresses tried (localhost → ::1 and 127.0.0.1): node reports an AggregateError.
  if (Array.isArray(error.errors)) {
    for (const inner of error.errors as TErrorLike[]) {
      if (typeof inner?.code === "string" && inner.code in BY_CODE) return inner.code;
    }
  }
  return undefined;
}

export function describeConnectionError(error: unknown): TConnectionProblem {
  const e = asErrorLike(error);
  const fromAdapter = adapterProblem(e);
  if (fromAdapter) return fromAdapter;
  const code = codeOf(e);
  if (code) return BY_CODE[code] as TConnectionProblem;
  const message = typeof e.message === "string" ? e.message : String(error);
  if (/timeout/i.test(message)) return BY_CODE.ETIMEDOUT as TConnectionProblem;
  if (/terminated unexpectedly|connection terminated/i.test(message)) return BY_CODE.ECONNRESET as TConnectionProblem;
  if (/does not support SSL/i.test(message)) {
    return { reason: "the server does not support TLS (remove sslmode=require from DATABASE_URL)", transient: false };
  }
  // Unknown: the driver's own words (pg messages name no secrets), first line only, no driver code prefix.
  const line = message.split("\n").find((l) => l.trim() !== "") ?? "unknown error";
  return { reason: line.trim().replace(/[.\s]+$/, ""), transient: false };
}
