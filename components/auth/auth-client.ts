"use client";

import { createAuthClient } from "better-auth/client";
import { PASSWORD_MIN_LENGTH } from "@/contracts/account";

export { safeNext } from "./safe-next";

/** better-auth's browser client, same origin (/api/auth). */
export const authClient = createAuthClient();

type TAuthError = { status?: number; code?: string; message?: string } | null | undefined;

/** One sentence for a form from a better-auth error (its codes, or the message our endpoints wrote). */
export function authErrorMessage(error: TAuthError): string {
  if (!error) return "Something went wrong. Please try again.";
  // The account throttle says how long to wait (server/auth/sign-in-throttle.ts); the per-address limit does not.
  if (error.status === 429 && error.code === "SIGN_IN_THROTTLED" && error.message) return error.message;
  if (error.status === 429) return "Too many attempts. Wait a minute, then try again.";
  switch (error.code) {
    case "INVALID_EMAIL_OR_PASSWORD":
      return "Wrong email or password.";
    case "INVALID_PASSWORD":
      return "The current password is wrong.";
    case "PASSWORD_TOO_SHORT":
      return `Use at least ${PASSWORD_MIN_LENGTH} characters for the password.`;
    case "PASSWORD_TOO_LONG":
      return "That password is too long.";
    case "INVALID_EMAIL":
      return "Enter a valid email address, like you@example.com.";
    default:
      return error.message || "Something went wrong. Please try again.";
  }
}

/** POSTs to one of our account-creation endpoints; resolves to an error sentence, or null on success. */
export async function createAccount(
  path: "/owner/create" | "/account/create",
  body: Record<string, unknown>,
): Promise<string | null> {
  const { error } = await authClient.$fetch(path, { method: "POST", body });
  return error ? authErrorMessage(error as TAuthError) : null;
}

/** A full page load, so the server renders the header and pages for the new session. */
export function goTo(path: string): void {
  window.location.assign(path);
}
