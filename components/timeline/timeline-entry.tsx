import { roundPercentsInText } from "@/components/format/chart-format";
import { LocalTime } from "@/components/format/local-time";
import { fieldLabel, formatChange, formatFieldValue, type TValueFormat } from "@/contracts/definition/format-value";
import type { TChangeCitation } from "@/contracts/timeline";
import { ChangeCitations } from "./change-citations";

type TDecision = { verdict: string; decidedBy: "code" | "agent"; reason: string };
export type TTimelineEntryView = {
  id: string;
  capturedAt: Date;
  materiality: "material" | "notable" | "baseline";
  delta: Record<string, { from: unknown; to: unknown }>;
  decisions: Record<string, TDecision>;
  definitionVersion: number;
  /** Context-file excerpts behind the reasons (docs/context-files.md). */
  citations?: readonly TChangeCitation[];
};

const BADGE = {
  material: "bg-red-100 text-red-900 dark:bg-red-950 dark:text-red-200",
  notable: "bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200",
  baseline: "bg-stone-200 text-stone-800 dark:bg-stone-800 dark:text-stone-200",
} as const;

/**
 * One timeline entry: when, how much it mattered, each field's from → to formatted for people, and who decided
 * why. `versionStarts` marks the entry where another definition version took over (shown only there, not on
 * every entry).
 */
export function TimelineEntry({
  entry,
  formats = {},
  versionStarts = false,
}: {
  entry: TTimelineEntryView;
  formats?: Record<string, TValueFormat>;
  versionStarts?: boolean;
}) {
  return (
    <li
      id={`change-${entry.id}`}
      data-testid="timeline-entry"
      data-materiality={entry.materiality}
      className="scroll-mt-4 py-3 target:bg-amber-50 dark:target:bg-amber-950"
    >
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <span className={`rounded-full px-2 py-0.5 text-xs font-medium ${BADGE[entry.materiality]}`}>
          {entry.materiality}
        </span>
        <LocalTime value={entry.capturedAt} className="text-stone-600 dark:text-stone-400" />
        {versionStarts ? (
          <span
            data-testid="timeline-version"
            className="rounded border border-stone-300 px-1.5 text-xs text-stone-700 dark:border-stone-700 dark:text-stone-300"
          >
            definition v{entry.definitionVersion} from here
          </span>
        ) : null}
      </div>
      <ul className="mt-2 space-y-1 text-sm">
        {Object.entries(entry.delta).map(([field, d]) => {
          const decision = entry.decisions[field];
          const format = formats[field];
          return (
            <li key={field} data-testid="timeline-delta" data-field={field}>
              <span className="font-medium">{fieldLabel(field)}</span>{" "}
              {entry.materiality === "baseline" ? (
                <span>{formatFieldValue(d.to, format)}</span>
              ) : (
                <span>{formatChange(d.from, d.to, format)}</span>
              )}
              {decision ? (
                <span className="block text-xs text-stone-600 dark:text-stone-400">
                  {decision.verdict} · decided by {decision.decidedBy === "agent" ? "the agent" : "a rule"}:{" "}
                  {roundPercentsInText(decision.reason)}
                </span>
              ) : null}
              <ChangeCitations field={field} citations={entry.citations} />
            </li>
          );
        })}
      </ul>
    </li>
  );
}
