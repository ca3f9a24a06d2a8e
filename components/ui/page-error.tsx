"use client";

import Link from "next/link";
import { useEffect } from "react";
import { buttonPrimary, buttonSecondary } from "@/components/ui/button-styles";
import { DATABASE_UNAVAILABLE_DIGEST, DATABASE_UNAVAILABLE_MESSAGE } from "@/contracts/database-unavailable";

/**
 * What an error boundary shows when a page fails. Server error details never reach the browser; the digest ties it
 * to the log, or says the database could not be reached (server/errors.ts databaseUnavailableError). `back`: a way
 * out besides trying again (the tracker page offers the list).
 */
export function PageError({
  error,
  reset,
  title = "Something went wrong",
  back,
}: {
  error: Error & { digest?: string };
  reset: () => void;
  title?: string;
  back?: { href: string; label: string };
}) {
  useEffect(() => {
    console.error(error);
  }, [error]);
  const unavailable = error.digest === DATABASE_UNAVAILABLE_DIGEST;
  return (
    <section
      role="alert"
      className="rounded-xl border border-red-300 bg-red-50 p-6 dark:border-red-900 dark:bg-red-950"
    >
      <h1 className="text-lg font-semibold">{title}</h1>
      <p className="mt-2 text-sm text-stone-700 dark:text-stone-300">
        {unavailable
          ? `This page could not be shown. ${DATABASE_UNAVAILABLE_MESSAGE}`
          : "This page could not be shown. It has been logged; please try again."}
        {error.digest && !unavailable ? (
          <span className="block text-xs text-stone-600 dark:text-stone-400">Reference: {error.digest}</span>
        ) : null}
      </p>
      <div className="mt-4 flex gap-2">
        <button type="button" onClick={reset} className={buttonPrimary}>
          Try again
        </button>
        {back ? (
          <Link href={back.href} className={buttonSecondary}>
            {back.label}
          </Link>
        ) : null}
      </div>
    </section>
  );
}
