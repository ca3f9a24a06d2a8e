import { betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { isAPIError } from "better-auth/api";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "@/contracts/account";
import type { TDb } from "../db";
import { getEnv, type TEnv } from "../env";
import { describeError } from "../errors";
import { logger } from "../logger";
import { accountsPlugin } from "./accounts-plugin";
import { resolveAuthSecret } from "./auth-secret";
import { CLIENT_ADDRESS_HEADER, clientAddressHeaderInstalled } from "./client-address";
import { isAllowedHost, requestPolicyFromEnv, type TRequestPolicy } from "./request-guard";
import { AUTH_COOKIE_PREFIX } from "./session-cookie";
import { signInThrottleFromEnv, type TSignInThrottlePolicy } from "./sign-in-throttle";
import { signInThrottlePlugin } from "./sign-in-throttle-plugin";

export const AUTH_BASE_PATH = "/api/auth";
const SESSION_DAYS = 30;

export type TAuthConfig = {
  secret: string;
  /** APP_URL, or http://localhost:PORT (only used for absolute links better-auth builds; none are sent here). */
  baseURL: string;
  /** Secure cookies: only when the public URL is https (a plain-http LAN install could not keep them). */
  secureCookies: boolean;
  policy: TRequestPolicy;
  /** better-auth's per-address limits (sign-in: 10 a minute). */
  rateLimit: boolean;
  /** The only header the client's address is read from (client-address.ts); null: none, the address is unknown. */
  clientAddressHeader: string | null;
  /** The per-email sign-in throttle (sign-in-throttle.ts); always on. */
  signInThrottle: TSignInThrottlePolicy;
};

export function authConfigFromEnv(env: TEnv): TAuthConfig {
  return {
    secret: resolveAuthSecret(env),
    baseURL: env.APP_URL ?? `http://localhost:${env.PORT}`,
    secureCookies: env.APP_URL?.startsWith("https://") ?? false,
    policy: requestPolicyFromEnv(env),
    rateLimit: env.NODE_ENV === "production",
    // Read only when this process writes it itself; elsewhere it would be the client's own claim.
    clientAddressHeader: clientAddressHeaderInstalled() ? CLIENT_ADDRESS_HEADER : null,
    signInThrottle: signInThrottleFromEnv(env),
  };
}

/**
 * The better-auth instance over the app's Prisma client (docs/design.md §9): email + password, database sessions in
 * HTTP-only SameSite=Lax cookies, no cookie cache (a revoked session stops working at once), sign-up only
 * through the gated endpoints of accountsPlugin.
 */
export function createAuth(db: TDb, config: TAuthConfig) {
  return betterAuth({
    appName: "Bellwether",
    secret: config.secret,
    baseURL: config.baseURL,
    basePath: AUTH_BASE_PATH,
    database: prismaAdapter(db, { provider: "postgresql" }),
    emailAndPassword: {
      enabled: true,
      disableSignUp: true,
      minPasswordLength: PASSWORD_MIN_LENGTH,
      maxPasswordLength: PASSWORD_MAX_LENGTH,
      revokeSessionsOnPasswordReset: true,
    },
    session: { expiresIn: SESSION_DAYS * 86_400, updateAge: 86_400 },
    user: {
      additionalFields: {
        role: { type: "string", required: false, input: false, defaultValue: "member" },
      },
    },
    advanced: {
      cookiePrefix: AUTH_COOKIE_PREFIX,
      useSecureCookies: config.secureCookies,
      // Ids come from the schema's defaults (cuid), like every other table.
      database: { generateId: false },
      // Never X-Forwarded-For itself: the client writes it (client-address.ts). Without the header the address is
      // unknown, and in production the per-address limit falls back to one bucket shared by every such request.
      ipAddress: { ipAddressHeaders: config.clientAddressHeader ? [config.clientAddressHeader] : [] },
    },
    // The Next proxy already refused foreign hosts and cross-site requests; better-auth checks Origin again
    // against the host the request came to (http or https behind a TLS proxy) and APP_URL.
    trustedOrigins: (request) => trustedOriginsFor(request, config.policy),
    rateLimit: {
      enabled: config.rateLimit,
      window: 60,
      max: 200,
      customRules: {
        "/sign-in/email": { window: 60, max: 10 },
        "/change-password": { window: 60, max: 10 },
      },
    },
    // Sessions are listed and revoked by id through tRPC (server/auth/sessions.ts); better-auth's own listing
    // would hand every session's token to the page's scripts.
    disabledPaths: ["/list-sessions"],
    telemetry: { enabled: false },
    // A refused request (a wrong password, a throttled sign-in, bad input) is the answer, not a failure: left to
    // itself better-auth prints each one as an ERROR line outside the app's logger. Server errors are still logged.
    onAPIError: {
      onError: (error) => {
        if (isAPIError(error) && error.statusCode < 500) return;
        logger.error("auth: request failed", { error: describeError(error) });
      },
    },
    logger: {
      level: "warn",
      log: (level, message) => {
        const log = level === "error" ? logger.error : level === "warn" ? logger.warn : logger.info;
        log(`auth: ${message}`); // the message only: better-auth's extra arguments may hold request data
      },
    },
    plugins: [accountsPlugin(db), signInThrottlePlugin(db, config.signInThrottle)],
  });
}

export type TAuth = ReturnType<typeof createAuth>;

function trustedOriginsFor(request: Request | undefined, policy: TRequestPolicy): string[] {
  const origins = policy.appOrigin ? [policy.appOrigin] : [];
  const host = request?.headers.get("host") ?? null;
  if (host && isAllowedHost(host, policy)) origins.push(`http://${host}`, `https://${host}`);
  return origins;
}

// One instance per database client (tests pass their own clients; the app has one).
const instances = new WeakMap<TDb, TAuth>();

export function getAuth(db: TDb): TAuth {
  let auth = instances.get(db);
  if (!auth) {
    auth = createAuth(db, authConfigFromEnv(getEnv()));
    instances.set(db, auth);
  }
  return auth;
}

/** Tests build the instance with their own secret and policy. */
export function setAuthForTests(db: TDb, auth: TAuth): void {
  instances.set(db, auth);
}
