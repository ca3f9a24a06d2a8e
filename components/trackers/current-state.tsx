import { LocalTime } from "@/components/format/local-time";
import { formatSigned } from "@/contracts/definition/format-number";
import { formatValue } from "./format";

type TState = {
  fields: Record<string, unknown>;
  observed: Record<string, unknown>;
  lastCheckedAt: Date;
  updatedAt: Date;
  entityKey: string;
} | null;

type TFieldRule = { name: string; rule: string };

/** A number out of a stored value (plain numbers and money), for the "+0.5 %" beside a kept baseline. */
function numericOf(value: unknown): number | null {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "object" && value !== null && "amount" in value) {
    const amount = (value as { amount: unknown }).amount;
    return typeof amount === "number" && Number.isFinite(amount) ? amount : null;
  }
  return null;
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/** "baseline 39 (+0.5%, rule: material on a 1% move or more)". */
function baselineNote(observed: unknown, baseline: unknown, rule: string | undefined): string {
  const now = numericOf(observed);
  const base = numericOf(baseline);
  const parts: string[] = [];
  if (now !== null && base !== null && base !== 0) {
    parts.push(`${formatSigned(Math.round(((now - base) / Math.abs(base)) * 1000) / 10)}%`);
  }
  // The field view's rule line starts with the field's name ("price: material on …").
  if (rule) parts.push(`rule: ${rule.replace(/^[^:]+:\s*/, "")}`);
  return `baseline ${formatValue(baseline)}${parts.length ? ` (${parts.join(", ")})` : ""}`;
}

/**
 * What the source says now, field by field, and — where a numeric rule called the last move noise and kept
 * the old value as the baseline the rules compare against — that baseline beside it (issue #14: "observed
 * and baseline, both kept").
 */
export function CurrentState({ state, rules = [] }: { state: TState; rules?: TFieldRule[] }) {
  if (!state)
    return (
      <p className="text-sm text-stone-600 dark:text-stone-400">
        No data yet — the first refresh records the baseline.
      </p>
    );
  const names = [...new Set([...Object.keys(state.observed), ...Object.keys(state.fields)])];
  return (
    <div data-testid="current-state">
      <dl className="grid grid-cols-1 gap-x-6 gap-y-2 text-sm sm:grid-cols-2">
        {names.map((name) => {
          const observed = Object.hasOwn(state.observed, name) ? state.observed[name] : state.fields[name];
          const baseline = state.fields[name];
          const differs = Object.hasOwn(state.fields, name) && !sameValue(observed, baseline);
          return (
            <div key={name}>
              <dt className="font-mono text-xs text-stone-600 dark:text-stone-400">{name}</dt>
              <dd className="break-words" data-testid={`state-field-${name}`}>
                {formatValue(observed)}
                {differs ? (
                  <span className="text-stone-600 dark:text-stone-400" data-testid={`state-baseline-${name}`}>
                    {" "}
                    now · {baselineNote(observed, baseline, rules.find((r) => r.name === name)?.rule)}
                  </span>
                ) : null}
              </dd>
            </div>
          );
        })}
      </dl>
      <p className="mt-3 text-xs text-stone-600 dark:text-stone-400">
        {state.entityKey} · last checked <LocalTime value={state.lastCheckedAt} />
      </p>
    </div>
  );
}
