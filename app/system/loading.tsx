export default function Loading() {
  return (
    <div role="status" aria-live="polite" className="space-y-4">
      <span className="sr-only">Loading…</span>
      <div aria-hidden="true" className="h-7 w-48 animate-pulse rounded bg-stone-200 dark:bg-stone-800" />
      <div aria-hidden="true" className="h-40 animate-pulse rounded-xl bg-stone-200 dark:bg-stone-800" />
    </div>
  );
}
