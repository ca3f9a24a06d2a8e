"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "@/components/providers/trpc";

/** Says plainly whether a model is configured; the layout prefetches the status so it renders at once. */
export function AiStatusIndicator() {
  const trpc = useTRPC();
  const { data, isError } = useQuery(trpc.system.status.queryOptions());

  const label = data?.ai.label ?? (isError ? "AI status unavailable" : "Checking AI…");
  const on = data ? data.ai.mode !== "rules" : false;

  return (
    <Link
      href="/system"
      data-testid="ai-status"
      data-mode={data?.ai.mode ?? "unknown"}
      title="AI configuration — open the System page"
      className="inline-flex items-center gap-2 rounded-full border border-stone-300 px-3 py-1 text-xs font-medium text-stone-700 hover:bg-stone-100 dark:border-stone-700 dark:text-stone-300 dark:hover:bg-stone-800"
    >
      <span aria-hidden="true" className={`size-2 rounded-full ${on ? "bg-emerald-500" : "bg-amber-500"}`} />
      <span>{label}</span>
    </Link>
  );
}
