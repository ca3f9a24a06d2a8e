"use client";

import { useEffect, useState } from "react";
import { authClient, goTo } from "./auth-client";

export function SignOutButton() {
  const [pending, setPending] = useState(false);
  const [failed, setFailed] = useState(false);
  // Once per page load: better-auth extends a session used for over a day and renews its cookie, so people who
  // keep using Bellwether stay signed in (sessions lapse after 30 days unused).
  useEffect(() => {
    void authClient.getSession();
  }, []);
  const signOut = async () => {
    setPending(true);
    const { error } = await authClient.signOut();
    setPending(false);
    if (error) setFailed(true);
    else goTo("/sign-in");
  };
  return (
    <button
      type="button"
      onClick={signOut}
      disabled={pending}
      className="rounded-md px-2 py-1 text-xs font-medium text-stone-700 hover:bg-stone-200 dark:text-stone-300 dark:hover:bg-stone-800"
      title={failed ? "Signing out failed; try again." : undefined}
    >
      {pending ? "Signing out…" : failed ? "Sign out (retry)" : "Sign out"}
    </button>
  );
}
