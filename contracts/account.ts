import { z } from "zod";

/**
 * Account input rules, shared by the server and the forms (no server imports: client components use it).
 * Length is the one password rule: long passphrases beat composition rules (NIST SP 800-63B).
 */
export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 128;

export const ZPasswordSchema = z
  .string()
  .min(PASSWORD_MIN_LENGTH, `Use at least ${PASSWORD_MIN_LENGTH} characters for the password.`)
  .max(PASSWORD_MAX_LENGTH, `Use at most ${PASSWORD_MAX_LENGTH} characters for the password.`);

export const ZEmailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.email("Enter a valid email address, like you@example.com."));

export const ZNameSchema = z.string().trim().min(1, "Enter your name.").max(100, "Keep the name under 100 characters.");

/** Creating an account: the owner on first run, or anyone with an invite (or while open sign-up is on). */
export const ZNewAccountSchema = z.object({
  name: ZNameSchema,
  email: ZEmailSchema,
  password: ZPasswordSchema,
});
export type TNewAccount = z.infer<typeof ZNewAccountSchema>;

export const ZInviteSignUpSchema = ZNewAccountSchema.extend({
  /** The token from the invite link; absent when signing up while open sign-up is on. */
  inviteToken: z.string().trim().min(1).max(200).optional(),
});
export type TInviteSignUp = z.infer<typeof ZInviteSignUpSchema>;

/** The first problem of a failed parse, as one sentence for the form. */
export function firstIssue(error: z.ZodError): string {
  return error.issues[0]?.message ?? "Check the form and try again.";
}
