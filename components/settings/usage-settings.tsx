"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "@/components/providers/trpc";

const number = new Intl.NumberFormat("en-US");
const month = new Intl.DateTimeFormat("en-GB", { month: "long", year: "numeric", timeZone: "UTC" });
const day = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "long", timeZone: "UTC" });

const cell = "px-2 py-1.5 text-right tabular-nums";

/**
 * Settings → Usage this month (docs/design.md §9): per tracker the refreshes, model calls and tokens, the feed's and
 * unbound setups' model use, and what is left of the monthly token budget (AI_MONTHLY_TOKEN_BUDGET).
 */
export function UsageSettings() {
  const trpc = useTRPC();
  const usage = useQuery(trpc.settings.usage.queryOptions());

  if (usage.isPending) return <p className="mt-2 text-sm text-stone-600 dark:text-stone-400">Loading usage…</p>;
  if (usage.isError) return <p role="alert">Usage could not be loaded: {usage.error.message}</p>;
  const u = usage.data;
  const { budget } = u;
  const other = [
    { label: "Feed (connecting text)", ...u.feed },
    { label: "Setup chats not bound to a tracker", ...u.unboundSetup },
  ].filter((r) => r.modelCalls > 0 || r.tokens > 0);

  return (
    <div className="mt-2 space-y-4 text-sm" data-testid="usage-this-month">
      <p className="text-stone-600 dark:text-stone-400">
        {month.format(u.from)} (UTC). Counts reset on {day.format(u.until)}.
      </p>

      <div data-testid="usage-budget">
        {budget.limitTokens === null ? (
          <p>
            AI budget: <span className="font-medium">unlimited</span> · {number.format(budget.spentTokens)} tokens used
            this month
          </p>
        ) : (
          <>
            <p>
              AI budget: <span className="font-medium">{number.format(budget.remainingTokens ?? 0)}</span> of{" "}
              {number.format(budget.limitTokens)} tokens left · {number.format(budget.spentTokens)} used
            </p>
            <meter
              className="mt-1 h-2 w-full"
              min={0}
              max={budget.limitTokens}
              low={budget.limitTokens * 0.75}
              high={budget.limitTokens * 0.9}
              optimum={0}
              value={Math.min(budget.spentTokens, budget.limitTokens)}
              aria-label="AI budget used"
            />
          </>
        )}
        {budget.exhausted ? (
          <p role="alert" className="mt-2 text-red-700 dark:text-red-400" data-testid="usage-budget-spent">
            Your monthly AI budget is spent. Model calls are paused until {day.format(budget.resetsAt)} (UTC): refreshes
            that need the model fail, setup answers with the built-in rules and the feed is not enhanced.
          </p>
        ) : null}
      </div>

      {u.trackers.length === 0 && other.length === 0 ? (
        <p className="text-stone-600 dark:text-stone-400">No refreshes or model calls yet this month.</p>
      ) : (
        <div className="overflow-x-auto">
          <table className="w-full min-w-[28rem] border-collapse" aria-label="Usage per tracker this month">
            <thead>
              <tr className="border-b border-stone-200 text-xs text-stone-600 dark:border-stone-800 dark:text-stone-400">
                <th scope="col" className="px-2 py-1.5 text-left font-medium">
                  Tracker
                </th>
                <th scope="col" className="px-2 py-1.5 text-right font-medium">
                  Refreshes
                </th>
                <th scope="col" className="px-2 py-1.5 text-right font-medium">
                  Model calls
                </th>
                <th scope="col" className="px-2 py-1.5 text-right font-medium">
                  Tokens
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-stone-200 dark:divide-stone-800">
              {u.trackers.map((t) => (
                <tr key={t.trackerId} data-testid="usage-tracker-row">
                  <th scope="row" className="max-w-xs truncate px-2 py-1.5 text-left font-normal">
                    <Link href={`/trackers/${t.trackerId}`} className="underline-offset-2 hover:underline">
                      {t.decision}
                    </Link>
                  </th>
                  <td className={cell}>{number.format(t.refreshes)}</td>
                  <td className={cell}>{number.format(t.modelCalls)}</td>
                  <td className={cell}>{number.format(t.tokens)}</td>
                </tr>
              ))}
              {other.map((r) => (
                <tr key={r.label} data-testid="usage-other-row">
                  <th scope="row" className="px-2 py-1.5 text-left font-normal text-stone-600 dark:text-stone-400">
                    {r.label}
                  </th>
                  <td className={cell}>—</td>
                  <td className={cell}>{number.format(r.modelCalls)}</td>
                  <td className={cell}>{number.format(r.tokens)}</td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr className="border-t border-stone-300 font-medium dark:border-stone-700" data-testid="usage-total-row">
                <th scope="row" className="px-2 py-1.5 text-left">
                  Total
                </th>
                <td className={cell}>{number.format(u.total.refreshes)}</td>
                <td className={cell}>{number.format(u.total.modelCalls)}</td>
                <td className={cell}>{number.format(u.total.tokens)}</td>
              </tr>
            </tfoot>
          </table>
        </div>
      )}
    </div>
  );
}
