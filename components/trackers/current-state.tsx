import { LocalTime } from "@/components/format/local-time";
import { formatValue } from "./format";

type TState = { fields: Record<string, unknown>; lastCheckedAt: Date; updatedAt: Date; entityKey: string } | null;

/** The accepted record: what the tracker currently believes, field by field. */
export function CurrentState({ state }: { state: TState }) {
  if (!state) return <p className="text-sm text-stone-600">No data yet — the first refresh records the baseline.</p>;
  return (
    <div data-testid="current-state">
      <dl className="grid grid-cols-1 gap-x-6 gap-y-2 text-sm sm:grid-cols-2">
        {Object.entries(state.fields).map(([name, value]) => (
          <div key={name}>
            <dt className="font-mono text-xs text-stone-500">{name}</dt>
            <dd className="break-words" data-testid={`state-field-${name}`}>
              {formatValue(value)}
            </dd>
          </div>
        ))}
      </dl>
      <p className="mt-3 text-xs text-stone-500">
        {state.entityKey} · last checked <LocalTime value={state.lastCheckedAt} />
      </p>
    </div>
  );
}
