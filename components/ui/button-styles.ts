/** Class lists for links and buttons that look like buttons (kept in TS so Tailwind sees them). */
export const buttonPrimary =
  "inline-flex items-center justify-center rounded-md bg-stone-900 px-4 py-2 text-sm font-medium text-white hover:bg-stone-700 dark:bg-stone-100 dark:text-stone-900 dark:hover:bg-stone-300";

export const buttonSecondary =
  "inline-flex items-center justify-center rounded-md border border-stone-300 px-4 py-2 text-sm font-medium hover:bg-stone-100 dark:border-stone-700 dark:hover:bg-stone-800";

/** A destructive action, after the person confirmed (Discard draft, Archive). */
export const buttonDanger =
  "inline-flex items-center justify-center rounded-md bg-red-700 px-4 py-2 text-sm font-medium text-white hover:bg-red-800 disabled:opacity-60 dark:bg-red-600 dark:hover:bg-red-700";

/** The keyboard focus outline (and the disabled look) for buttons and controls. */
export const focusRing =
  "focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-stone-900 dark:focus-visible:outline-stone-100 disabled:opacity-60";
