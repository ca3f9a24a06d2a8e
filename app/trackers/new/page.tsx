import type { Metadata } from "next";
import Link from "next/link";
import { buttonSecondary } from "@/components/ui/button-styles";
import { PageHeader } from "@/components/ui/page-header";

export const metadata: Metadata = { title: "New tracker" };

export default function NewTrackerPage() {
  return (
    <>
      <PageHeader title="New tracker" />
      <section className="rounded-xl border border-stone-200 bg-white p-6 dark:border-stone-800 dark:bg-stone-900">
        <h2 className="text-lg font-semibold">Tracker setup arrives soon</h2>
        <p className="mt-2 max-w-prose text-sm text-stone-600 dark:text-stone-400">
          Setting up a tracker will be a short chat: you state the decision, choose a web page or a Google Maps place,
          review the fields Bellwether proposes from one real sample, and lock them. That conversation is not built yet,
          so there is nothing to fill in here today.
        </p>
        <Link href="/" className={`${buttonSecondary} mt-6`}>
          Back to the feed
        </Link>
      </section>
    </>
  );
}
