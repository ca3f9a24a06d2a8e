"use client";

import { useEffect } from "react";
import { buttonPrimary } from "@/components/ui/button-styles";
import { DATABASE_UNAVAILABLE_DIGEST, DATABASE_UNAVAILABLE_MESSAGE } from "@/contracts/database-unavailable";

/**
 * Shown when a page fails. Server error details never reach the browser; the digest ties it to the log, or says
 * the database could not be reached (server/errors.ts databaseUnavailableError).
 */
export default function ErrorPage({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  useEffect(() => {
    console.error(error);
  }, [error]);

  return (
    <section
      role="alert"
      className="rounded-xl border border-red-300 bg-red-50 p-6 dark:border-red-900 dark:bg-red-950"
    >
      <h1 className="text-lg font-semibold">Something went wrong</h1>
      <p className="mt-2 text-sm text-stone-700 dark:text-stone-300">
        {error.digest === DATABASE_UNAVAILABLE_DIGEST
          ? `This page could not be shown. ${DATABASE_UNAVAILABLE_MESSAGE}`
          : "This page could not be shown. It has been logged; please try again."}
        {error.digest && error.digest !== DATABASE_UNAVAILABLE_DIGEST ? (
          <span className="block text-xs text-stone-600 dark:text-stone-400">Reference: {error.digest}</span>
        ) : null}
      </p>
      <button type="button" onClick={reset} className={`${buttonPrimary} mt-4`}>
        Try again
      </button>
    </section>
  );
}
