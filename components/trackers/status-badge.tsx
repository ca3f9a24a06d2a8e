const STYLES = {
  active: "bg-emerald-100 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-200",
  paused: "bg-stone-200 text-stone-800 dark:bg-stone-800 dark:text-stone-200",
  archived: "bg-stone-100 text-stone-700 dark:bg-stone-800 dark:text-stone-300",
  draft: "bg-sky-100 text-sky-900 dark:bg-sky-950 dark:text-sky-200",
  failing: "bg-red-100 text-red-900 dark:bg-red-950 dark:text-red-200",
} as const;

/** Active, paused, archived, draft — or failing, which wins over active. */
export function StatusBadge({ status, failing }: { status: keyof typeof STYLES; failing?: boolean }) {
  const shown = failing ? "failing" : status;
  return (
    <span
      data-testid="tracker-status"
      data-status={shown}
      className={`inline-flex rounded-full px-2 py-0.5 text-xs font-medium ${STYLES[shown]}`}
    >
      {shown}
    </span>
  );
}
