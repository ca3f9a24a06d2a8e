"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "@/components/providers/trpc";

/** The header's inbox link with the unread count (polled each minute; the inbox page clears it). */
export function InboxLink() {
  const trpc = useTRPC();
  const unread = useQuery({ ...trpc.notification.unreadCount.queryOptions(), refetchInterval: 60_000 });
  const count = unread.data?.unread ?? 0;
  return (
    <Link
      href="/inbox"
      className="relative rounded-md px-3 py-2 text-sm font-medium text-stone-700 hover:bg-stone-200 dark:text-stone-300 dark:hover:bg-stone-800"
      aria-label={count ? `Inbox, ${count} unread` : "Inbox"}
      data-testid="inbox-link"
    >
      Inbox
      {/* The badge's room is kept while the count loads and when it is 0, so nothing in the header moves when it
          arrives (on a phone the header wraps, and a late badge pushed the whole page down). */}
      <span
        data-testid={count ? "inbox-unread" : undefined}
        aria-hidden={count ? undefined : true}
        className={`ml-1 inline-block min-w-8 rounded-full px-1.5 py-0.5 text-center text-xs font-semibold ${
          count ? "bg-red-700 text-white dark:bg-red-600" : "invisible"
        }`}
      >
        {count > 99 ? "99+" : count || "\u00a0"}
      </span>
    </Link>
  );
}
