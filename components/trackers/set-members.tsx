"use client";

import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useId, useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { buttonSecondary, focusRing } from "@/components/ui/button-styles";
import {
  SET_MEMBERS_DEFAULT_LIMIT,
  type TSetMemberCounts,
  type TSetMemberSort,
  type TSetMemberStatus,
  type TSetMemberView,
} from "@/contracts/set-members";
import { RelativeTime } from "./relative-time";
import { SetMemberBadges } from "./set-member-badges";
import { setMemberHref } from "./set-member-href";

/** The first page's input is the one app/trackers/[id]/page.tsx prefetches (same query key). */
const PAGE_SIZE = SET_MEMBERS_DEFAULT_LIMIT;
/** Typing pauses this long before the list is asked again. */
const SEARCH_DEBOUNCE_MS = 300;

const SORTS: { value: TSetMemberSort; label: string }[] = [
  { value: "name", label: "Name (A–Z)" },
  { value: "first_seen", label: "Newest first" },
  { value: "last_change", label: "Latest change first" },
];

const STATUSES: { value: TSetMemberStatus; label: string }[] = [
  { value: "all", label: "All" },
  { value: "listed", label: "Listed" },
  { value: "missing", label: "Missing" },
  { value: "gone", label: "Gone" },
];

const control =
  "min-h-11 w-full rounded-md border border-stone-300 bg-white px-2 py-1 text-sm dark:border-stone-700 dark:bg-stone-900 sm:min-h-0";

/**
 * The members of a tracker that watches a set (docs/sets.md): what the set lists now, what appeared lately, what is
 * missing from the last reads and what is gone. Searched, sorted and filtered on the server (tracker.setMembers), a
 * page at a time; the page's live events reload it with the rest of the tracker's queries.
 */
export function SetMembers({ trackerId }: { trackerId: string }) {
  const trpc = useTRPC();
  const id = useId();
  const [typed, setTyped] = useState("");
  const [search, setSearch] = useState("");
  const [sort, setSort] = useState<TSetMemberSort>("name");
  const [status, setStatus] = useState<TSetMemberStatus>("all");
  useEffect(() => {
    const timer = setTimeout(() => setSearch(typed.trim()), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [typed]);

  const members = useInfiniteQuery({
    ...trpc.tracker.setMembers.infiniteQueryOptions(
      { trackerId, sort, status, limit: PAGE_SIZE, ...(search ? { search } : {}) },
      { getNextPageParam: (last) => last.nextCursor ?? undefined },
    ),
    // A new search or filter keeps the list on screen (dimmed) until its answer comes.
    placeholderData: keepPreviousData,
  });

  const first = members.data?.pages[0];
  if (first && !first.watchesSet) return null;
  const headingId = `${id}-heading`;
  return (
    <section
      // The feed card's "+N more" links here (docs/feed.md, "A set's card").
      id="members"
      aria-labelledby={headingId}
      data-testid="set-members"
      className="min-w-0 rounded-xl border border-stone-200 bg-white p-5 dark:border-stone-800 dark:bg-stone-900"
    >
      <h2 id={headingId} className="mb-3 flex flex-wrap items-baseline gap-2 text-base font-semibold">
        Members
        {first ? (
          <span data-testid="set-members-count" className="text-sm font-normal text-stone-600 dark:text-stone-400">
            {first.counts.all.toLocaleString("en-US")}
            {search ? " matching" : ""}
          </span>
        ) : null}
      </h2>
      <div className="mb-4 flex flex-col gap-3 sm:flex-row sm:flex-wrap sm:items-end">
        <div className="flex min-w-0 flex-col gap-1 text-sm sm:flex-1 sm:basis-56">
          <label htmlFor={`${id}-search`}>Search members</label>
          <input
            id={`${id}-search`}
            type="search"
            value={typed}
            onChange={(e) => setTyped(e.target.value)}
            maxLength={200}
            placeholder="Name, key or any field"
            autoComplete="off"
            data-testid="set-members-search"
            className={`${control} ${focusRing}`}
          />
        </div>
        <div className="flex flex-col gap-1 text-sm">
          <label htmlFor={`${id}-sort`}>Sort</label>
          <select
            id={`${id}-sort`}
            value={sort}
            onChange={(e) => setSort(e.target.value as TSetMemberSort)}
            data-testid="set-members-sort"
            className={`${control} ${focusRing}`}
          >
            {SORTS.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </div>
      </div>
      <StatusFilter status={status} counts={first?.counts ?? null} onStatus={setStatus} />
      {members.isPending ? (
        <p role="status">Loading members…</p>
      ) : members.isError ? (
        <p role="alert" className="text-sm text-red-700 dark:text-red-400">
          Could not load the members: {members.error.message}
        </p>
      ) : (
        <MemberList
          trackerId={trackerId}
          members={members.data.pages.flatMap((page) => page.members.map((member) => ({ member, asOf: page.asOf })))}
          total={first?.total ?? 0}
          filtered={Boolean(search) || status !== "all"}
          headingId={headingId}
          busy={members.isPlaceholderData}
          more={
            members.hasNextPage
              ? { loading: members.isFetchingNextPage, load: () => void members.fetchNextPage() }
              : null
          }
        />
      )}
    </section>
  );
}

/** One toggle button per status, each with its count (within the search); the pressed one is the list shown. */
function StatusFilter({
  status,
  counts,
  onStatus,
}: {
  status: TSetMemberStatus;
  counts: TSetMemberCounts | null;
  onStatus: (status: TSetMemberStatus) => void;
}) {
  return (
    <fieldset className="mb-4 flex flex-wrap gap-2" data-testid="set-members-status">
      <legend className="sr-only">Show members</legend>
      {STATUSES.map((s) => {
        const pressed = s.value === status;
        return (
          <button
            key={s.value}
            type="button"
            aria-pressed={pressed}
            data-status={s.value}
            onClick={() => onStatus(s.value)}
            className={`inline-flex min-h-11 items-center gap-1 rounded-full border px-3 text-sm sm:min-h-8 ${focusRing} ${
              pressed
                ? "border-stone-900 bg-stone-900 text-white dark:border-stone-100 dark:bg-stone-100 dark:text-stone-900"
                : "border-stone-300 hover:bg-stone-100 dark:border-stone-700 dark:hover:bg-stone-800"
            }`}
          >
            {s.label}
            {counts ? <span className="tabular-nums opacity-80">{counts[s.value]}</span> : null}
          </button>
        );
      })}
    </fieldset>
  );
}

/** The loaded pages as one list (each member with the instant its page was read), "Show more" for the next page. */
function MemberList({
  trackerId,
  members,
  total,
  filtered,
  headingId,
  busy,
  more,
}: {
  trackerId: string;
  members: { member: TSetMemberView; asOf: Date }[];
  total: number;
  filtered: boolean;
  headingId: string;
  busy: boolean;
  more: { loading: boolean; load: () => void } | null;
}) {
  if (members.length === 0) {
    return (
      <p data-testid="set-members-empty" className="text-sm text-stone-600 dark:text-stone-400">
        {filtered ? "No members match." : "No members yet: the first refresh lists them."}
      </p>
    );
  }
  return (
    <div aria-busy={busy} className={busy ? "opacity-60 transition-opacity" : undefined}>
      <ul
        aria-labelledby={headingId}
        data-testid="set-members-list"
        className="divide-y divide-stone-200 dark:divide-stone-800"
      >
        {members.map(({ member, asOf }) => (
          <MemberRow key={member.key} trackerId={trackerId} member={member} asOf={asOf} />
        ))}
      </ul>
      <div className="mt-3 flex flex-wrap items-center gap-3 text-sm">
        <p role="status" className="text-stone-600 dark:text-stone-400">
          Showing {members.length.toLocaleString("en-US")} of {total.toLocaleString("en-US")}
        </p>
        {more ? (
          <button
            type="button"
            className={`${buttonSecondary} ${focusRing}`}
            disabled={more.loading || busy}
            onClick={more.load}
            data-testid="set-members-more"
          >
            {more.loading ? "Loading…" : "Show more"}
          </button>
        ) : null}
      </div>
    </div>
  );
}

function MemberRow({ trackerId, member, asOf }: { trackerId: string; member: TSetMemberView; asOf: Date }) {
  const gone = member.goneAt !== null;
  const missing = !gone && member.missingRuns > 0;
  // The field the name came from is the heading already, and a field that is the key (a listing's product URL is
  // both) is the key's line below: each is shown once.
  const fields = member.fields.filter(
    (f) => !((f.name === "title" || f.name === "name") && f.text === member.name) && f.text !== member.key,
  );
  return (
    <li
      data-testid="set-member"
      data-key={member.key}
      data-status={gone ? "gone" : missing ? "missing" : "listed"}
      className="min-w-0 py-3"
    >
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
        <h3 className={`min-w-0 font-medium break-words ${gone ? "text-stone-500 dark:text-stone-400" : ""}`}>
          <Link
            href={setMemberHref(trackerId, member.key)}
            data-testid="set-member-link"
            className={`rounded-sm underline decoration-stone-400 underline-offset-2 hover:decoration-current dark:decoration-stone-500 ${focusRing}`}
          >
            {member.name}
          </Link>
        </h3>
        <SetMemberBadges isNew={member.isNew} missingRuns={member.missingRuns} goneAt={member.goneAt} />
      </div>
      {member.key !== member.name ? (
        <p className="mt-0.5 font-mono text-xs break-all text-stone-600 dark:text-stone-400">{member.key}</p>
      ) : null}
      {fields.length > 0 ? (
        <dl className="mt-2 grid grid-cols-1 gap-x-3 gap-y-1 text-sm sm:grid-cols-[max-content_minmax(0,1fr)]">
          {fields.map((f) => (
            <div key={f.name} className="contents">
              <dt className="text-stone-600 dark:text-stone-400">{f.label}</dt>
              <dd className="mb-1 line-clamp-3 min-w-0 break-words sm:mb-0">{f.text}</dd>
            </div>
          ))}
        </dl>
      ) : null}
      <p className="mt-1 text-xs text-stone-600 dark:text-stone-400">
        First seen <RelativeTime value={member.firstSeenAt} asOf={asOf} />
        {member.lastChangeAt ? (
          <>
            {" "}
            · last change <RelativeTime value={member.lastChangeAt} asOf={asOf} />
          </>
        ) : null}
      </p>
    </li>
  );
}
