import Link from "next/link";
import type { ReactNode } from "react";
import { buttonPrimary } from "./button-styles";

type TEmptyStateProps = {
  title: string;
  children: ReactNode;
  action?: { href: string; label: string };
};

/** What a page shows before there is anything on it: what this is and the one next step. */
export function EmptyState({ title, children, action }: TEmptyStateProps) {
  return (
    <section
      aria-labelledby="empty-state-title"
      className="rounded-xl border border-dashed border-stone-300 px-6 py-12 text-center dark:border-stone-700"
    >
      <h2 id="empty-state-title" className="text-lg font-semibold">
        {title}
      </h2>
      <div className="mx-auto mt-2 max-w-prose text-sm text-stone-600 dark:text-stone-400">{children}</div>
      {action ? (
        <Link href={action.href} className={`${buttonPrimary} mt-6`}>
          {action.label}
        </Link>
      ) : null}
    </section>
  );
}
