"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import type { ReactNode } from "react";
import { LocalTime } from "@/components/format/local-time";
import { useTRPC } from "@/components/providers/trpc";
import { focusRing } from "@/components/ui/button-styles";
import type { TSetMemberDetail } from "@/contracts/set-member";
import { SetMemberBadges } from "./set-member-badges";
import { SetMemberChanges } from "./set-member-changes";
import { useTrackerLive } from "./use-tracker-live";

const card = "min-w-0 rounded-xl border border-stone-200 bg-white p-5 dark:border-stone-800 dark:bg-stone-900";
const link = `rounded-sm underline decoration-stone-400 underline-offset-2 hover:decoration-current dark:decoration-stone-500 ${focusRing}`;

/**
 * One member of a set tracker (docs/sets.md, docs/trackers.md "The member page"): the way back to its tracker, its
 * name, link and status, what it says now, and its own timeline. Live like the tracker page: a run of its tracker
 * reloads it in place.
 */
export function SetMemberPage({ trackerId, memberKey }: { trackerId: string; memberKey: string }) {
  const trpc = useTRPC();
  const detail = useQuery(trpc.tracker.setMember.queryOptions({ trackerId, key: memberKey }));
  const { live, announcement } = useTrackerLive(trackerId);
  if (detail.isPending) return <p role="status">Loading the member…</p>;
  if (detail.isError) {
    return (
      <p role="alert" className="text-red-700 dark:text-red-400">
        {detail.error.message}
      </p>
    );
  }
  const { tracker, member } = detail.data;
  const trackerHref = `/trackers/${encodeURIComponent(tracker.id)}`;
  return (
    <div className="space-y-6" data-testid="set-member-page" data-status={member.status} data-live={live}>
      <nav aria-label="Breadcrumb" className="text-sm text-stone-600 dark:text-stone-400">
        <ol className="flex min-w-0 flex-wrap items-center gap-x-2 gap-y-1">
          <li>
            <Link href="/trackers" className={link}>
              Trackers
            </Link>
          </li>
          <li aria-hidden="true">/</li>
          <li className="min-w-0 break-words">
            <Link href={trackerHref} className={link} data-testid="set-member-back">
              {tracker.decision}
            </Link>
          </li>
          <li aria-hidden="true">/</li>
          <li aria-current="page" className="min-w-0 break-words text-stone-800 dark:text-stone-200">
            {member.name}
          </li>
        </ol>
      </nav>

      <header className="space-y-2">
        <h1
          className={`text-2xl font-semibold tracking-tight break-words ${member.status === "gone" ? "text-stone-600 dark:text-stone-400" : ""}`}
          data-testid="set-member-name"
        >
          {member.name}
        </h1>
        <p className="flex flex-wrap items-center gap-2 text-sm text-stone-700 dark:text-stone-300">
          <SetMemberBadges isNew={member.isNew} missingRuns={member.missingRuns} goneAt={member.goneAt} />
          <span data-testid="set-member-status">
            <StatusText member={member} />
          </span>
        </p>
        {member.url ? (
          <p className="text-sm break-all">
            <a
              href={member.url}
              target="_blank"
              rel="noopener noreferrer nofollow"
              className={link}
              data-testid="set-member-url"
            >
              {member.url}
              <span className="sr-only"> (opens in a new tab)</span>
            </a>
          </p>
        ) : null}
        {member.key !== member.url && member.key !== member.name ? (
          <p className="text-xs text-stone-600 dark:text-stone-400">
            Key <span className="font-mono break-all">{member.key}</span>
          </p>
        ) : null}
        <p className="text-xs text-stone-600 dark:text-stone-400">
          First seen <LocalTime value={member.firstSeenAt} />
          {member.lastChangeAt ? (
            <>
              {" "}
              · last change <LocalTime value={member.lastChangeAt} />
            </>
          ) : null}
        </p>
        <p role="status" className="min-h-4 text-xs text-sky-800 dark:text-sky-300">
          {announcement.text}
          {/* The same words again are announced again. */}
          {announcement.text && announcement.n % 2 ? "\u00a0" : ""}
        </p>
      </header>

      <Section title={member.status === "gone" ? "Its last values" : "What it says now"} testId="set-member-fields">
        <MemberFields member={member} />
      </Section>

      <Section title="Its changes" testId="set-member-timeline">
        {(headingId) => (
          <SetMemberChanges
            trackerId={tracker.id}
            memberKey={member.key}
            firstSeenAt={member.firstSeenAt}
            headingId={headingId}
          />
        )}
      </Section>
    </div>
  );
}

function Section({
  title,
  testId,
  children,
}: {
  title: string;
  testId: string;
  children: ReactNode | ((headingId: string) => ReactNode);
}) {
  const id = `${testId}-heading`;
  return (
    <section aria-labelledby={id} data-testid={testId} className={card}>
      <h2 id={id} className="mb-3 text-base font-semibold">
        {title}
      </h2>
      {typeof children === "function" ? children(id) : children}
    </section>
  );
}

/** Listed, missing from the last N reads, or gone since a date, in words beside the badges. */
function StatusText({ member }: { member: TSetMemberDetail }) {
  if (member.status === "gone") return <>No longer listed: dropped from the set.</>;
  if (member.status === "missing") {
    return (
      <>
        Not in the last {member.missingRuns} read{member.missingRuns === 1 ? "" : "s"}; gone if it stays away.
      </>
    );
  }
  return <>Listed in the last read.</>;
}

/** Its fields, except the one that named it (the heading) and the one that is its link (shown above). */
function MemberFields({ member }: { member: TSetMemberDetail }) {
  const fields = member.fields.filter(
    (f) =>
      !((f.name === "title" || f.name === "name") && f.text === member.name) &&
      f.text !== member.url &&
      f.text !== member.key,
  );
  if (fields.length === 0) {
    return (
      <p className="text-sm text-stone-600 dark:text-stone-400">
        {member.fields.length === 0 ? "No values read yet." : "Nothing besides its name and link."}
      </p>
    );
  }
  return (
    <dl className="grid grid-cols-1 gap-x-4 gap-y-1 text-sm sm:grid-cols-[max-content_minmax(0,1fr)]">
      {fields.map((f) => (
        <div key={f.name} className="contents">
          <dt className="text-stone-600 dark:text-stone-400">{f.label}</dt>
          <dd className="mb-2 min-w-0 break-words whitespace-pre-line sm:mb-0" data-field={f.name}>
            {f.text}
          </dd>
        </div>
      ))}
    </dl>
  );
}
