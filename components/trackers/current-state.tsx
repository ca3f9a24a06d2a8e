import { LocalTime } from "@/components/format/local-time";
import {
  fieldLabel,
  formatFieldValue,
  formatRelativeChange,
  numericValue,
  type TValueFormat,
} from "@/contracts/definition/format-value";

type TState = {
  fields: Record<string, unknown>;
  observed: Record<string, unknown>;
  lastCheckedAt: Date;
  updatedAt: Date;
  entityKey: string;
} | null;

/** What the page knows of each field from the definition in force: its rule in words and how its values read. */
type TFieldInfo = { name: string; rule: string; format?: TValueFormat };

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/** "baseline $39.00 (+0.5%, rule: material on a 1% move or more)". */
function baselineNote(observed: unknown, baseline: unknown, field: TFieldInfo | undefined): string {
  const now = numericValue(observed);
  const base = numericValue(baseline);
  const parts: string[] = [];
  const relative = now !== null && base !== null ? formatRelativeChange(base, now) : null;
  if (relative) parts.push(relative);
  // The field view's rule line starts with the field's name ("price: material on …").
  if (field?.rule) parts.push(`rule: ${field.rule.replace(/^[^:]+:\s*/, "")}`);
  return `baseline ${formatFieldValue(baseline, field?.format)}${parts.length ? ` (${parts.join(", ")})` : ""}`;
}

/**
 * What the source says now, field by field, formatted for people (money by currency, "4.0" stays "4.0"), and —
 * where a numeric rule called the last move noise and kept the old value as the baseline the rules compare
 * against — that baseline beside it (observed and baseline, both kept: docs/refresh.md).
 */
export function CurrentState({ state, rules = [] }: { state: TState; rules?: TFieldInfo[] }) {
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
          const field = rules.find((r) => r.name === name);
          const observed = Object.hasOwn(state.observed, name) ? state.observed[name] : state.fields[name];
          const baseline = state.fields[name];
          const differs = Object.hasOwn(state.fields, name) && !sameValue(observed, baseline);
          return (
            <div key={name}>
              <dt className="text-xs text-stone-600 dark:text-stone-400">{fieldLabel(name)}</dt>
              <dd className="break-words" data-testid={`state-field-${name}`}>
                {formatFieldValue(observed, field?.format)}
                {differs ? (
                  <span className="text-stone-600 dark:text-stone-400" data-testid={`state-baseline-${name}`}>
                    {" "}
                    now · {baselineNote(observed, baseline, field)}
                  </span>
                ) : null}
              </dd>
            </div>
          );
        })}
      </dl>
      <p className="mt-3 break-all text-xs text-stone-600 dark:text-stone-400">
        {state.entityKey} · last checked <LocalTime value={state.lastCheckedAt} />
      </p>
    </div>
  );
}
