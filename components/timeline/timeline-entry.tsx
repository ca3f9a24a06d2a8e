import { LocalTime } from "@/components/format/local-time";
import { formatValue } from "@/components/trackers/format";

type TDecision = { verdict: string; decidedBy: "code" | "agent"; reason: string };
export type TTimelineEntryView = {
  id: string;
  capturedAt: Date;
  materiality: "material" | "notable" | "baseline";
  delta: Record<string, { from: unknown; to: unknown }>;
  decisions: Record<string, TDecision>;
  definitionVersion: number;
};

const BADGE = {
  material: "bg-red-100 text-red-900 dark:bg-red-950 dark:text-red-200",
  notable: "bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200",
  baseline: "bg-stone-200 text-stone-800 dark:bg-stone-800 dark:text-stone-200",
} as const;

/** One timeline entry: when, how much it mattered, each field's from → to, and who decided why. */
export function TimelineEntry({ entry }: { entry: TTimelineEntryView }) {
  return (
    <li data-testid="timeline-entry" data-materiality={entry.materiality} className="py-3">
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <span className={`rounded-full px-2 py-0.5 text-xs font-medium ${BADGE[entry.materiality]}`}>
          {entry.materiality}
        </span>
        <LocalTime value={entry.capturedAt} className="text-stone-600 dark:text-stone-400" />
        <span className="text-xs text-stone-500">definition v{entry.definitionVersion}</span>
      </div>
      <ul className="mt-2 space-y-1 text-sm">
        {Object.entries(entry.delta).map(([field, d]) => {
          const decision = entry.decisions[field];
          return (
            <li key={field} data-testid="timeline-delta">
              <span className="font-mono text-xs">{field}</span>{" "}
              {entry.materiality === "baseline" ? (
                <span>{formatValue(d.to)}</span>
              ) : (
                <span>
                  {formatValue(d.from)} → {formatValue(d.to)}
                </span>
              )}
              {decision ? (
                <span className="block text-xs text-stone-600 dark:text-stone-400">
                  {decision.verdict} · decided by {decision.decidedBy === "agent" ? "the agent" : "a rule"}:{" "}
                  {decision.reason}
                </span>
              ) : null}
            </li>
          );
        })}
      </ul>
    </li>
  );
}
