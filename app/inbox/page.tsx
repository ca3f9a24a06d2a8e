import type { Metadata } from "next";
import { InboxList } from "@/components/notifications/inbox-list";
import { PageHeader } from "@/components/ui/page-header";
import { HydrateClient, prefetch, trpc } from "@/server/api/rsc";

export const metadata: Metadata = { title: "Inbox" };

/** The in-app inbox (docs/notifications.md): material changes, failing trackers and paused channels. */
export default async function InboxPage() {
  await prefetch(trpc.notification.inbox.queryOptions({ limit: 50 }));
  return (
    <HydrateClient>
      <PageHeader title="Inbox" description="What your trackers found, newest first. Channels are set in Settings." />
      <InboxList />
    </HydrateClient>
  );
}
