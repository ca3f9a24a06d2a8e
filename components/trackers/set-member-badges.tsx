import { LocalTime } from "@/components/format/local-time";

const badge = "inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium";

/**
 * A set member's status as badges (docs/sets.md): **new** (first seen in the last day, after the first listing),
 * **missing N** (absent N reads, not yet gone), **gone** with its date. The members list and the member page show the
 * same ones.
 */
export function SetMemberBadges({
  isNew,
  missingRuns,
  goneAt,
}: {
  isNew: boolean;
  missingRuns: number;
  goneAt: Date | null;
}) {
  const missing = goneAt === null && missingRuns > 0;
  return (
    <>
      {isNew ? (
        <span data-badge="new" className={`${badge} bg-sky-100 text-sky-900 dark:bg-sky-950 dark:text-sky-200`}>
          new
        </span>
      ) : null}
      {missing ? (
        <span
          data-badge="missing"
          className={`${badge} bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200`}
          title={`Not in the last ${missingRuns} read${missingRuns === 1 ? "" : "s"}`}
        >
          missing {missingRuns}
        </span>
      ) : null}
      {goneAt ? (
        <span
          data-badge="gone"
          className={`${badge} bg-stone-200 text-stone-800 dark:bg-stone-800 dark:text-stone-200`}
        >
          gone&nbsp;
          <LocalTime value={goneAt} />
        </span>
      ) : null}
    </>
  );
}
