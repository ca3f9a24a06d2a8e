/** While the member page renders on the server: its shape, and a status for screen readers. */
export default function Loading() {
  return (
    <div role="status" aria-live="polite" className="space-y-4">
      <span className="sr-only">Loading the member…</span>
      <div aria-hidden="true" className="h-4 w-64 max-w-full animate-pulse rounded bg-stone-200 dark:bg-stone-800" />
      <div aria-hidden="true" className="h-8 w-80 max-w-full animate-pulse rounded bg-stone-200 dark:bg-stone-800" />
      <div aria-hidden="true" className="h-32 animate-pulse rounded-xl bg-stone-200 dark:bg-stone-800" />
      <div aria-hidden="true" className="h-48 animate-pulse rounded-xl bg-stone-200 dark:bg-stone-800" />
    </div>
  );
}
