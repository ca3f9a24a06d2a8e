const STYLES = {
  active: "bg-emerald-100 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-200",
  paused: "bg-stone-200 text-stone-800 dark:bg-stone-800 dark:text-stone-200",
  archived: "bg-stone-100 text-stone-700 dark:bg-stone-800 dark:text-stone-300",
  draft: "bg-sky-100 text-sky-900 dark:bg-sky-950 dark:text-sky-200",
  failing: "bg-red-100 text-red-900 dark:bg-red-950 dark:text-red-200",
  "needs attention": "bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200",
} as const;

/** Active, paused, archived, draft — or failing, which wins over active, or needs attention (docs/field-health.md). */
export function StatusBadge({
  status,
  failing,
  needsAttention,
}: {
  status: keyof typeof STYLES;
  failing?: boolean;
  needsAttention?: boolean;
}) {
  const shown = failing ? "failing" : needsAttention ? "needs attention" : status;
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
