"use client";

import { type FormEvent, useState } from "react";
import { buttonPrimary } from "@/components/ui/button-styles";
import { authClient, authErrorMessage, goTo, safeNext } from "./auth-client";
import { Field, FormError } from "./form-fields";

export function SignInForm({ next }: { next?: string }) {
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setPending(true);
    setError(null);
    const { error: failed } = await authClient.signIn.email({
      email: String(form.get("email") ?? "").trim(),
      password: String(form.get("password") ?? ""),
    });
    if (failed) {
      setPending(false);
      setError(authErrorMessage(failed));
      return;
    }
    goTo(safeNext(next));
  };

  return (
    <form onSubmit={submit} className="space-y-4" aria-describedby="sign-in-error" noValidate>
      <Field id="email" name="email" type="email" label="Email" autoComplete="email" required autoFocus />
      <Field id="password" name="password" type="password" label="Password" autoComplete="current-password" required />
      <FormError id="sign-in-error" message={error} />
      <button type="submit" className={`${buttonPrimary} w-full`} disabled={pending}>
        {pending ? "Signing in…" : "Sign in"}
      </button>
    </form>
  );
}
