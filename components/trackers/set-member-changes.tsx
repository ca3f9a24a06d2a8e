"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { roundPercentsInText } from "@/components/format/chart-format";
import { LocalTime } from "@/components/format/local-time";
import { useTRPC } from "@/components/providers/trpc";
import { buttonSecondary, focusRing } from "@/components/ui/button-styles";
import { MEMBER_CHANGES_DEFAULT_LIMIT, type TMemberChangeEntry, type TMemberChangeKind } from "@/contracts/set-member";

/** The first page's input is the one app/trackers/[id]/members/[key]/page.tsx prefetches (same query key). */
const PAGE_SIZE = MEMBER_CHANGES_DEFAULT_LIMIT;

const KIND: Record<TMemberChangeKind, { label: string; className: string }> = {
  appeared: { label: "appeared", className: "bg-sky-100 text-sky-900 dark:bg-sky-950 dark:text-sky-200" },
  back: { label: "listed again", className: "bg-sky-100 text-sky-900 dark:bg-sky-950 dark:text-sky-200" },
  changed: { label: "changed", className: "bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200" },
  gone: { label: "gone", className: "bg-stone-200 text-stone-800 dark:bg-stone-800 dark:text-stone-200" },
};

const MATERIAL = "bg-red-100 text-red-900 dark:bg-red-950 dark:text-red-200";

/**
 * A set member's own timeline (its MemberChange entries, docs/sets.md): newest first, a page at a time with "Show
 * older"; each entry says what happened (appeared, changed, gone, listed again), each field's before → after and the
 * stored verdict with its reason. The tracker's own timeline holds the set's roll-ups instead.
 */
export function SetMemberChanges({
  trackerId,
  memberKey,
  firstSeenAt,
  headingId,
}: {
  trackerId: string;
  memberKey: string;
  firstSeenAt: Date;
  headingId: string;
}) {
  const trpc = useTRPC();
  const changes = useInfiniteQuery(
    trpc.tracker.memberChanges.infiniteQueryOptions(
      { trackerId, key: memberKey, limit: PAGE_SIZE },
      { getNextPageParam: (last) => last.nextCursor ?? undefined },
    ),
  );
  if (changes.isPending) return <p role="status">Loading its changes…</p>;
  if (changes.isError) {
    return (
      <p role="alert" className="text-sm text-red-700 dark:text-red-400">
        Could not load its changes: {changes.error.message}
      </p>
    );
  }
  const entries = changes.data.pages.flatMap((page) => page.entries);
  if (entries.length === 0) {
    return (
      <p data-testid="set-member-changes-empty" className="text-sm text-stone-600 dark:text-stone-400">
        No changes since it was first seen on <LocalTime value={firstSeenAt} />.
      </p>
    );
  }
  return (
    <div>
      <ol
        aria-labelledby={headingId}
        data-testid="set-member-changes"
        className="divide-y divide-stone-200 dark:divide-stone-800"
      >
        {entries.map((entry) => (
          <ChangeEntry key={entry.id} entry={entry} />
        ))}
      </ol>
      <div className="mt-3 flex flex-wrap items-center gap-3 text-sm">
        <p role="status" className="text-stone-600 dark:text-stone-400">
          {entries.length === 1 ? "1 entry" : `${entries.length.toLocaleString("en-US")} entries`}
          {changes.hasNextPage ? " shown" : ""}
        </p>
        {changes.hasNextPage ? (
          <button
            type="button"
            className={`${buttonSecondary} ${focusRing} min-h-11 sm:min-h-0`}
            disabled={changes.isFetchingNextPage}
            onClick={() => void changes.fetchNextPage()}
            data-testid="set-member-changes-older"
          >
            {changes.isFetchingNextPage ? "Loading…" : "Show older"}
          </button>
        ) : null}
      </div>
    </div>
  );
}

function ChangeEntry({ entry }: { entry: TMemberChangeEntry }) {
  const kind = KIND[entry.kind];
  return (
    <li data-testid="set-member-change" data-kind={entry.kind} data-materiality={entry.materiality} className="py-3">
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <span className={`rounded-full px-2 py-0.5 text-xs font-medium ${kind.className}`}>{kind.label}</span>
        {entry.materiality === "material" ? (
          <span className={`rounded-full px-2 py-0.5 text-xs font-medium ${MATERIAL}`}>material</span>
        ) : null}
        <LocalTime value={entry.at} className="text-stone-600 dark:text-stone-400" />
      </div>
      {entry.kind === "gone" ? (
        <p className="mt-2 text-sm">No longer listed: dropped from the set after reads without it.</p>
      ) : null}
      {entry.fields.length > 0 ? (
        <ul className="mt-2 space-y-1 text-sm">
          {entry.fields.map((f) => (
            <li key={f.field} data-field={f.field} className="min-w-0 break-words">
              <span className="font-medium">{f.label}</span> <span>{f.text}</span>
              {f.verdict && f.reason ? (
                <span className="block text-xs text-stone-600 dark:text-stone-400">
                  {f.verdict} · decided by {f.decidedBy === "agent" ? "the agent" : "a rule"}:{" "}
                  {roundPercentsInText(f.reason)}
                </span>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
    </li>
  );
}
