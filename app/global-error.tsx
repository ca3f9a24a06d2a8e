"use client";

import { buttonPrimary } from "@/components/ui/button-styles";
import { DATABASE_UNAVAILABLE_DIGEST, DATABASE_UNAVAILABLE_MESSAGE } from "@/contracts/database-unavailable";
import "./globals.css";

/**
 * Last resort when the root layout itself fails (e.g. the database cannot be opened). The root layout reads the
 * session first, so a database outage lands here for a signed-in visitor: its digest says so.
 */
export default function GlobalError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <html lang="en">
      <body className="mx-auto max-w-xl px-4 py-16">
        <main role="alert">
          <h1 className="text-xl font-semibold">Bellwether could not load</h1>
          <p className="mt-2 text-sm text-stone-700 dark:text-stone-300">
            {error.digest === DATABASE_UNAVAILABLE_DIGEST
              ? DATABASE_UNAVAILABLE_MESSAGE
              : "The server hit an error while preparing this page. Check the server log for details."}
            {error.digest && error.digest !== DATABASE_UNAVAILABLE_DIGEST ? (
              <span className="block text-xs text-stone-600 dark:text-stone-400">Reference: {error.digest}</span>
            ) : null}
          </p>
          <button type="button" onClick={reset} className={`${buttonPrimary} mt-4`}>
            Try again
          </button>
        </main>
      </body>
    </html>
  );
}
