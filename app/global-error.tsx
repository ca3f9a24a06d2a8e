"use client";

import { buttonPrimary } from "@/components/ui/button-styles";
import "./globals.css";

/** Last resort when the root layout itself fails (e.g. the database cannot be opened). */
export default function GlobalError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <html lang="en">
      <body className="mx-auto max-w-xl px-4 py-16">
        <main role="alert">
          <h1 className="text-xl font-semibold">Bellwether could not load</h1>
          <p className="mt-2 text-sm text-stone-700 dark:text-stone-300">
            The server hit an error while preparing this page. Check the server log for details.
            {error.digest ? (
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
