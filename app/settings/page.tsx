import type { Metadata } from "next";
import Link from "next/link";
import { ApiTokensSection } from "@/components/api-tokens/api-tokens-section";
import { AccountSettings } from "@/components/auth/account-settings";
import { NotificationChannels } from "@/components/notifications/notification-channels";
import { AtomFeedUrl, NotificationDefaults } from "@/components/notifications/notification-defaults";
import { FeedSettings } from "@/components/settings/feed-settings";
import { UsageSettings } from "@/components/settings/usage-settings";
import { PageHeader } from "@/components/ui/page-header";
import { HydrateClient, prefetch, requirePageUser, trpc } from "@/server/api/rsc";

export const metadata: Metadata = { title: "Settings" };

/**
 * The person's own preferences; how the server runs (AI, database, versions) is on the read-only System page. Every
 * section arrives with the HTML, so the page reads without JavaScript: no loading.tsx (its Suspense boundary would
 * stream the content hidden behind a skeleton that only a script reveals), and each section's query is prefetched
 * below with the key its component uses.
 */
export default async function SettingsPage() {
  const user = await requirePageUser();
  // The sections' data arrives with the page (no loading flash, and no client fetch still in flight when the
  // person acts — a create's refresh of the list would otherwise race the first load).
  await Promise.all([
    prefetch(trpc.settings.feed.queryOptions()),
    prefetch(trpc.settings.usage.queryOptions()),
    prefetch(trpc.account.sessions.queryOptions()),
    prefetch(trpc.apiToken.list.queryOptions()),
    prefetch(trpc.notification.channels.queryOptions()),
    prefetch(trpc.notification.defaults.queryOptions()),
    ...(user.role === "owner"
      ? [prefetch(trpc.account.access.queryOptions()), prefetch(trpc.account.invites.queryOptions())]
      : []),
  ]);

  return (
    <HydrateClient>
      <PageHeader
        title="Settings"
        description={
          <>
            Your account, feed and API tokens. How this server is configured (AI model, database, versions) is on the{" "}
            <Link href="/system" className="underline underline-offset-2">
              System
            </Link>{" "}
            page.
          </>
        }
      />
      <div className="space-y-6">
        <AccountSettings user={{ name: user.name, email: user.email, isOwner: user.role === "owner" }} />

        <section
          aria-labelledby="settings-feed"
          className="rounded-xl border border-stone-200 bg-white p-6 dark:border-stone-800 dark:bg-stone-900"
        >
          <h2 id="settings-feed" className="text-base font-semibold">
            Feed
          </h2>
          <FeedSettings />
        </section>

        <section
          id="notifications"
          aria-labelledby="settings-notifications"
          className="rounded-xl border border-stone-200 bg-white p-6 dark:border-stone-800 dark:bg-stone-900"
        >
          <h2 id="settings-notifications" className="text-base font-semibold">
            Notifications
          </h2>
          <NotificationChannels />
          <h3 className="mt-6 text-sm font-semibold">When to notify</h3>
          <NotificationDefaults />
          <h3 className="mt-6 text-sm font-semibold">Atom feed</h3>
          <AtomFeedUrl />
        </section>

        <section
          aria-labelledby="settings-usage"
          className="rounded-xl border border-stone-200 bg-white p-6 dark:border-stone-800 dark:bg-stone-900"
        >
          <h2 id="settings-usage" className="text-base font-semibold">
            Usage this month
          </h2>
          <UsageSettings />
        </section>

        <ApiTokensSection />
      </div>
    </HydrateClient>
  );
}
