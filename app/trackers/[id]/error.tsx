"use client";

import Link from "next/link";
import { useEffect } from "react";
import { buttonPrimary, buttonSecondary } from "@/components/ui/button-styles";

/** The tracker page failed to render: say so, offer a retry and the way back to the list. */
export default function TrackerError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  useEffect(() => {
    console.error(error);
  }, [error]);
  return (
    <section
      role="alert"
      className="rounded-xl border border-red-300 bg-red-50 p-6 dark:border-red-900 dark:bg-red-950"
    >
      <h1 className="text-lg font-semibold">This tracker could not be shown</h1>
      <p className="mt-2 text-sm">
        It has been logged; please try again.
        {error.digest ? (
          <span className="block text-xs text-stone-600 dark:text-stone-400">Reference: {error.digest}</span>
        ) : null}
      </p>
      <div className="mt-4 flex gap-2">
        <button type="button" onClick={reset} className={buttonPrimary}>
          Try again
        </button>
        <Link href="/trackers" className={buttonSecondary}>
          All trackers
        </Link>
      </div>
    </section>
  );
}
