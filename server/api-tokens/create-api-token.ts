import { randomBytes } from "node:crypto";
import { z } from "zod";
import type { TDb, TTx } from "../db";
import { AppError } from "../errors";
import { hashToken, TOKEN_PREFIX } from "./hash-token";

const ZNameSchema = z.string().trim().min(1, "Give the token a name.").max(100, "Keep the name under 100 characters.");

export type TApiTokenView = {
  id: string;
  name: string;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
};

/** A new token for the user. The plain token is returned once; only its hash is stored. */
export async function createApiToken(
  db: TDb | TTx,
  input: { userId: string; name: string },
): Promise<{ token: string; apiToken: TApiTokenView }> {
  const name = ZNameSchema.safeParse(input.name);
  if (!name.success) throw new AppError("BAD_REQUEST", name.error.issues[0]?.message ?? "Invalid name.");
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
  const row = await db.apiToken.create({
    data: { userId: input.userId, name: name.data, tokenHash: hashToken(token), prefix: token.slice(0, 10) },
  });
  const { tokenHash: _hash, userId: _user, ...apiToken } = row;
  return { token, apiToken };
}
