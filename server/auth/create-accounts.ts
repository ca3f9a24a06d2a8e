import { randomUUID } from "node:crypto";
import type { TDb, TTx } from "../db";
import { AppError } from "../errors";
import type { User } from "../generated/prisma/client";
import { isUniqueViolation } from "../lib/unique-violation";
import { LOCAL_USER_ID } from "../users/ensure-local-user";
import { getAccessState } from "./access-state";
import { hashInviteToken } from "./invites";

/** What account creation returns: the user row better-auth then opens a session for. */
export type TAccountUser = User;

type TNewCredentials = { name: string; email: string; passwordHash: string };

/**
 * Creates the owner account, once per install, in one transaction:
 * 1. the legacy local user of a pre-accounts install, when there is one, *becomes* the owner — its id is renamed
 *    to the new account's id and every table that references users follows through its foreign key
 *    (all are `ON UPDATE CASCADE`, Prisma's default), so trackers, timelines, setup chats, API tokens, settings
 *    and the feed cache change hands in that one statement and nothing is left behind (docs/design.md §9);
 * 2. the password credential is stored;
 * 3. the Instance row (id 1) is inserted — the guard: a concurrent second request fails on its primary key and
 *    its whole transaction, including step 1, rolls back. Exactly one owner, whatever the timing.
 */
export async function createOwnerAccount(db: TDb, input: TNewCredentials): Promise<TAccountUser> {
  const email = input.email.trim().toLowerCase();
  try {
    return await db.$transaction(async (tx) => {
      if ((await getAccessState(tx)).ownerId) throw ownerExists();
      const id = randomUUID();
      const adopted = await tx.user.updateMany({
        where: { id: LOCAL_USER_ID, isLocal: true },
        data: { id, email, name: input.name, role: "owner", isLocal: false, emailVerified: false },
      });
      if (adopted.count === 0) await tx.user.create({ data: { id, email, name: input.name, role: "owner" } });
      await storeCredential(tx, id, input.passwordHash);
      await tx.instance.create({ data: { id: 1, ownerId: id } });
      return tx.user.findUniqueOrThrow({ where: { id } });
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    if ((await getAccessState(db)).ownerId) throw ownerExists();
    throw emailTaken();
  }
}

/**
 * Creates a member account: with an invite token (single use — claimed atomically in the same transaction, so
 * two people racing for one link make one account), or without one while the owner has open sign-up on.
 */
export async function createMemberAccount(
  db: TDb,
  input: TNewCredentials & { inviteToken?: string },
): Promise<TAccountUser> {
  const email = input.email.trim().toLowerCase();
  try {
    return await db.$transaction(async (tx) => {
      const access = await getAccessState(tx);
      if (!access.ownerId) {
        throw new AppError("PRECONDITION_FAILED", "Create the owner account first.", {
          details: { reason: "no_owner" },
        });
      }
      // Who may sign up is decided before the email is looked at: a stranger without a usable invite gets the same
      // answer for a taken email as for a free one, so the form cannot be used to learn who has an account.
      if (input.inviteToken) {
        await assertInviteUsable(tx, input.inviteToken);
      } else if (!access.openSignUp) {
        throw new AppError(
          "FORBIDDEN",
          "Sign-up is by invitation only. Ask the owner of this Bellwether for an invite link.",
          {
            details: { reason: "sign_up_closed" },
          },
        );
      }
      const id = randomUUID();
      const user = await tx.user.create({ data: { id, email, name: input.name, role: "member" } });
      await storeCredential(tx, id, input.passwordHash);
      if (input.inviteToken) await claimInvite(tx, input.inviteToken, id);
      return user;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw emailTaken();
    throw error;
  }
}

async function storeCredential(tx: TTx, userId: string, passwordHash: string): Promise<void> {
  // better-auth's shape for email + password: providerId "credential", accountId = the user's id.
  await tx.account.create({ data: { userId, accountId: userId, providerId: "credential", password: passwordHash } });
}

const usableInvite = (tokenHash: string, now: Date) =>
  ({ tokenHash, usedAt: null, revokedAt: null, expiresAt: { gt: now } }) as const;

/** Throws why the invite cannot be used (unknown, used, revoked or expired). */
async function refuseInvite(tx: TTx, tokenHash: string): Promise<never> {
  const invite = await tx.invite.findUnique({ where: { tokenHash } });
  const reason = !invite ? "unknown" : invite.usedAt ? "used" : invite.revokedAt ? "revoked" : "expired";
  throw new AppError("FORBIDDEN", INVITE_PROBLEMS[reason], { details: { reason: `invite_${reason}` } });
}

/** Throws unless the invite could be claimed now (checked before the account's email is looked at). */
async function assertInviteUsable(tx: TTx, token: string): Promise<void> {
  const tokenHash = hashInviteToken(token);
  if ((await tx.invite.count({ where: usableInvite(tokenHash, new Date()) })) === 0) await refuseInvite(tx, tokenHash);
}

/** Marks the invite used by `userId`, or throws when it is unknown, used, revoked or expired. */
async function claimInvite(tx: TTx, token: string, userId: string): Promise<void> {
  const now = new Date();
  const tokenHash = hashInviteToken(token);
  const claimed = await tx.invite.updateMany({
    where: usableInvite(tokenHash, now),
    data: { usedAt: now, usedById: userId },
  });
  if (claimed.count !== 1) await refuseInvite(tx, tokenHash);
}

export const INVITE_PROBLEMS = {
  unknown: "This invite link is not valid. Ask the owner for a new one.",
  used: "This invite link has already been used. Ask the owner for a new one.",
  revoked: "This invite link was withdrawn. Ask the owner for a new one.",
  expired: "This invite link has expired. Ask the owner for a new one.",
} as const;

function ownerExists(): AppError {
  return new AppError("CONFLICT", "This Bellwether already has an owner. Sign in instead.", {
    details: { reason: "owner_exists" },
  });
}

function emailTaken(): AppError {
  return new AppError("CONFLICT", "An account with this email already exists. Sign in instead.", {
    details: { reason: "email_taken" },
  });
}
