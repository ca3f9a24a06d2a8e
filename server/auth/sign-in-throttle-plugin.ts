import type { BetterAuthPlugin } from "better-auth";
import { APIError, createAuthMiddleware, isAPIError } from "better-auth/api";
import type { TDb } from "../db";
import {
  claimSignInAttempt,
  clearSignInAttempts,
  signInThrottledMessage,
  type TSignInThrottlePolicy,
} from "./sign-in-throttle";

const SIGN_IN_PATH = "/sign-in/email";

/** The email a sign-in names, if it names one (a body without one is refused by the endpoint before any check). */
function emailOf(body: unknown): string | null {
  const email = (body as { email?: unknown } | null | undefined)?.email;
  return typeof email === "string" && email.trim() !== "" ? email : null;
}

/**
 * The account throttle (sign-in-throttle.ts) around better-auth's email sign-in: before the password is checked the
 * attempt is counted, or refused with 429, code SIGN_IN_THROTTLED and Retry-After; after a successful sign-in the
 * count is cleared. It runs in every environment; the per-address limit (create-auth.ts) is better-auth's own.
 */
export function signInThrottlePlugin(db: TDb, policy: TSignInThrottlePolicy) {
  const isSignIn = (ctx: { path?: string }) => ctx.path === SIGN_IN_PATH;
  return {
    id: "bellwether-sign-in-throttle",
    hooks: {
      before: [
        {
          matcher: isSignIn,
          handler: createAuthMiddleware(async (ctx) => {
            const email = emailOf(ctx.body);
            if (!email) return;
            const claim = await claimSignInAttempt(db, { email, policy });
            if (claim.allowed) return;
            throw new APIError(
              "TOO_MANY_REQUESTS",
              { code: "SIGN_IN_THROTTLED", message: signInThrottledMessage(claim.retryAfterSeconds) },
              { "Retry-After": String(claim.retryAfterSeconds) },
            );
          }),
        },
      ],
      after: [
        {
          matcher: isSignIn,
          handler: createAuthMiddleware(async (ctx) => {
            const email = emailOf(ctx.body);
            const returned = ctx.context.returned;
            if (email && returned !== undefined && !isAPIError(returned)) await clearSignInAttempts(db, { email });
          }),
        },
      ],
    },
  } satisfies BetterAuthPlugin;
}
