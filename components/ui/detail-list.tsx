import type { ReactNode } from "react";

/** A titled panel of label → value rows (a description list), as on the System page. */
export function DetailSection({ title, children }: { title: string; children: ReactNode }) {
  const id = `section-${title.toLowerCase().replace(/\W+/g, "-")}`;
  return (
    <section
      aria-labelledby={id}
      className="rounded-xl border border-stone-200 bg-white p-6 dark:border-stone-800 dark:bg-stone-900"
    >
      <h2 id={id} className="text-base font-semibold">
        {title}
      </h2>
      <dl className="mt-2 divide-y divide-stone-200 dark:divide-stone-800">{children}</dl>
    </section>
  );
}

export function DetailRow({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  return (
    <div className="grid grid-cols-1 gap-1 py-3 sm:grid-cols-3 sm:gap-4">
      <dt className="text-sm font-medium text-stone-600 dark:text-stone-400">{label}</dt>
      <dd className="break-all text-sm sm:col-span-2" data-testid={testId}>
        {children}
      </dd>
    </div>
  );
}
