import type { BetterAuthPlugin, GenericEndpointContext } from "better-auth";
import { APIError, createAuthEndpoint } from "better-auth/api";
import { setSessionCookie } from "better-auth/cookies";
import { z } from "zod";
import { firstIssue, ZInviteSignUpSchema, ZNewAccountSchema } from "@/contracts/account";
import type { TDb } from "../db";
import { APP_ERROR_CODES, isAppError } from "../errors";
import { logger } from "../logger";
import { createMemberAccount, createOwnerAccount, type TAccountUser } from "./create-accounts";

/**
 * Account creation, as endpoints of the better-auth handler (/api/auth/owner/create, /api/auth/account/create).
 * better-auth's own sign-up is disabled: creating an account here is gated (first-run owner, invite, open sign-up)
 * and, for the owner, adopts the pre-accounts data in the same transaction (create-accounts.ts). Running inside the
 * handler gives these the same origin checks, rate limits and session cookies as sign-in.
 */
export function accountsPlugin(db: TDb) {
  return {
    id: "bellwether-accounts",
    endpoints: {
      createOwnerAccount: createAuthEndpoint(
        "/owner/create",
        { method: "POST", body: z.record(z.string(), z.unknown()) },
        async (ctx) => {
          const input = ZNewAccountSchema.safeParse(ctx.body);
          if (!input.success) throw badInput(firstIssue(input.error));
          const passwordHash = await ctx.context.password.hash(input.data.password);
          const user = await run(() => createOwnerAccount(db, { ...input.data, passwordHash }));
          logger.info("owner account created", { userId: user.id });
          return signInCreated(ctx, user);
        },
      ),
      createMemberAccount: createAuthEndpoint(
        "/account/create",
        { method: "POST", body: z.record(z.string(), z.unknown()) },
        async (ctx) => {
          const input = ZInviteSignUpSchema.safeParse(ctx.body);
          if (!input.success) throw badInput(firstIssue(input.error));
          const passwordHash = await ctx.context.password.hash(input.data.password);
          const user = await run(() => createMemberAccount(db, { ...input.data, passwordHash }));
          logger.info("account created", { userId: user.id, via: input.data.inviteToken ? "invite" : "open sign-up" });
          return signInCreated(ctx, user);
        },
      ),
    },
    // Password hashing is deliberately slow; so is guessing invite links.
    rateLimit: [
      { pathMatcher: (path: string) => path === "/owner/create" || path === "/account/create", window: 60, max: 10 },
    ],
  } satisfies BetterAuthPlugin;
}

async function signInCreated(ctx: GenericEndpointContext, user: TAccountUser) {
  const session = await ctx.context.internalAdapter.createSession(user.id);
  if (!session) throw APIError.fromStatus("INTERNAL_SERVER_ERROR", { message: "Could not start a session." });
  await setSessionCookie(ctx, { session, user: { ...user, email: user.email ?? "" } });
  return ctx.json({ user: { id: user.id, name: user.name, email: user.email, role: user.role } });
}

function badInput(message: string): APIError {
  return APIError.fromStatus("BAD_REQUEST", { message, code: "INVALID_INPUT" });
}

/** AppErrors become better-auth API errors with the same status and a machine-readable `code` (the reason). */
async function run<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!isAppError(error)) throw error;
    const reason = typeof error.details?.reason === "string" ? error.details.reason : error.code;
    throw new APIError(APP_ERROR_CODES[error.code].http as 400, { message: error.message, code: reason.toUpperCase() });
  }
}
