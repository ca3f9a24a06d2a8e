"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { LocalTime } from "@/components/format/local-time";
import { useTRPC } from "@/components/providers/trpc";
import { buttonSecondary } from "@/components/ui/button-styles";

/** The in-app inbox: newest first, each linking to its timeline entry; opening one or "Mark all read" clears it. */
export function InboxList() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const inbox = useQuery(trpc.notification.inbox.queryOptions({ limit: 50 }));
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries(trpc.notification.inbox.queryFilter()),
      queryClient.invalidateQueries(trpc.notification.unreadCount.queryFilter()),
    ]);
  const markRead = useMutation(trpc.notification.markRead.mutationOptions({ onSuccess: refresh }));

  if (inbox.isPending) return <p className="text-sm">Loading…</p>;
  if (inbox.isError)
    return (
      <p role="alert" className="text-sm text-red-700 dark:text-red-300">
        Could not load the inbox: {inbox.error.message}
      </p>
    );
  if (inbox.data.length === 0)
    return (
      <p className="text-sm text-stone-600 dark:text-stone-400" data-testid="inbox-empty">
        Nothing yet. Material changes, failing trackers and paused channels show up here.
      </p>
    );
  const unread = inbox.data.some((i) => !i.read);
  return (
    <div className="space-y-3">
      {unread ? (
        <button
          type="button"
          className={buttonSecondary}
          onClick={() => markRead.mutate({})}
          disabled={markRead.isPending}
        >
          Mark all read
        </button>
      ) : null}
      <ul className="divide-y divide-stone-200 rounded-xl border border-stone-200 bg-white dark:divide-stone-800 dark:border-stone-800 dark:bg-stone-900">
        {inbox.data.map((item) => (
          <li key={item.id} className="p-4" data-testid="inbox-item" data-read={item.read}>
            <div className="flex flex-wrap items-baseline gap-2">
              {item.read ? null : (
                <span className="rounded bg-red-700 px-1.5 text-xs font-semibold text-white dark:bg-red-600">new</span>
              )}
              {item.href ? (
                <Link
                  href={item.href}
                  className="font-medium underline-offset-2 hover:underline"
                  onClick={() => {
                    if (!item.read) markRead.mutate({ ids: [item.id] });
                  }}
                >
                  {item.title}
                </Link>
              ) : (
                <span className="font-medium">{item.title}</span>
              )}
              <span className="text-xs text-stone-600 dark:text-stone-400">
                <LocalTime value={item.createdAt} />
              </span>
            </div>
            <p className="mt-1 text-sm whitespace-pre-line text-stone-700 dark:text-stone-300">{item.body}</p>
          </li>
        ))}
      </ul>
    </div>
  );
}
