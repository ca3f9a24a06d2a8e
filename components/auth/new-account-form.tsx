"use client";

import { type FormEvent, useState } from "react";
import { buttonPrimary } from "@/components/ui/button-styles";
import { firstIssue, PASSWORD_MIN_LENGTH, ZNewAccountSchema } from "@/contracts/account";
import { createAccount, goTo } from "./auth-client";
import { Field, FormError } from "./form-fields";

/**
 * Name, email, password (twice). `owner` creates the owner account on first run; otherwise a member account with
 * the invite token (or through open sign-up). Checked here for quick feedback and again on the server.
 */
export function NewAccountForm({
  kind,
  inviteToken,
  submitLabel,
}: {
  kind: "owner" | "member";
  inviteToken?: string;
  submitLabel: string;
}) {
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const input = ZNewAccountSchema.safeParse({
      name: form.get("name"),
      email: form.get("email"),
      password: form.get("password"),
    });
    if (!input.success) return setError(firstIssue(input.error));
    if (form.get("confirm") !== input.data.password) return setError("The two passwords do not match.");
    setPending(true);
    setError(null);
    const failed =
      kind === "owner"
        ? await createAccount("/owner/create", input.data)
        : await createAccount("/account/create", { ...input.data, ...(inviteToken ? { inviteToken } : {}) });
    if (failed) {
      setPending(false);
      setError(failed);
      return;
    }
    goTo("/");
  };

  return (
    <form onSubmit={submit} className="space-y-4" aria-describedby="new-account-error" noValidate>
      <Field id="name" name="name" label="Your name" autoComplete="name" required maxLength={100} autoFocus />
      <Field id="email" name="email" type="email" label="Email" autoComplete="email" required />
      <Field
        id="password"
        name="password"
        type="password"
        label="Password"
        autoComplete="new-password"
        required
        minLength={PASSWORD_MIN_LENGTH}
        hint={`At least ${PASSWORD_MIN_LENGTH} characters. A few unrelated words make a strong one.`}
      />
      <Field id="confirm" name="confirm" type="password" label="Password again" autoComplete="new-password" required />
      <FormError id="new-account-error" message={error} />
      <button type="submit" className={`${buttonPrimary} w-full`} disabled={pending}>
        {pending ? "Creating the account…" : submitLabel}
      </button>
    </form>
  );
}
