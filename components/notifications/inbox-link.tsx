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
      data-testid="inbox-link"
    >
      {/* The name is the visible text ("Inbox 3") and the word "unread" for screen readers: a label that replaced the
          text would not contain what is seen (WCAG 2.5.3, label in name). */}
      Inbox{count ? " " : null}
      {/* Over the link's corner, out of the flow: the count arriving after the first paint moves nothing (on a
          phone the header wraps, and a badge in the flow pushed the whole page down). */}
      {count ? (
        <span
          data-testid="inbox-unread"
          className="absolute -top-1 -right-1 min-w-5 rounded-full bg-red-700 px-1 text-center text-xs leading-5 font-semibold text-white dark:bg-red-600"
        >
          {count > 99 ? "99+" : count}
          <span className="sr-only"> unread</span>
        </span>
      ) : null}
    </Link>
  );
}
