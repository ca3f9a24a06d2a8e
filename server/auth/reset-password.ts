import { hashPassword } from "better-auth/crypto";
import { ZEmailSchema, ZPasswordSchema } from "@/contracts/account";
import type { TDb } from "../db";
import { AppError } from "../errors";

/**
 * Sets a new password for the account with this email (the command-line reset for a forgotten owner password,
 * `npm run auth:reset-password`) and signs that account out everywhere. Hashes exactly as better-auth does.
 */
export async function resetPassword(
  db: TDb,
  input: { email: string; newPassword: string },
): Promise<{ userId: string; sessionsRevoked: number }> {
  const email = ZEmailSchema.safeParse(input.email);
  if (!email.success) throw new AppError("BAD_REQUEST", email.error.issues[0]?.message ?? "Invalid email.");
  const password = ZPasswordSchema.safeParse(input.newPassword);
  if (!password.success) throw new AppError("BAD_REQUEST", password.error.issues[0]?.message ?? "Invalid password.");

  const user = await db.user.findUnique({ where: { email: email.data } });
  if (!user) throw new AppError("NOT_FOUND", `No account has the email ${email.data}.`);
  const hash = await hashPassword(password.data);
  return db.$transaction(async (tx) => {
    const updated = await tx.account.updateMany({
      where: { userId: user.id, providerId: "credential" },
      data: { password: hash },
    });
    if (updated.count === 0) {
      await tx.account.create({
        data: { userId: user.id, accountId: user.id, providerId: "credential", password: hash },
      });
    }
    const { count } = await tx.session.deleteMany({ where: { userId: user.id } });
    return { userId: user.id, sessionsRevoked: count };
  });
}
