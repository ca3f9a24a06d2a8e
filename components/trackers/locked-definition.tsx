import { LocalTime } from "@/components/format/local-time";

type TKept = { name: string; value: string; fileName: string; reason: "removed" | "replaced"; since: Date | null };
type TField = { name: string; type: string; description: string; rule: string; kept?: TKept[] };
type TVersion = {
  version: number;
  lockedAt: Date | null;
  inForce: boolean;
  identityRule: string;
  fields: TField[];
  changes?: string[];
};

/** The definition in force (fields, types, rules in plain language) and the version history with diffs. */
export function LockedDefinition({ definition, versions }: { definition: TVersion | null; versions: TVersion[] }) {
  if (!definition) {
    return (
      <p className="text-sm text-stone-600 dark:text-stone-400">
        No locked definition yet — finish setting this tracker up.
      </p>
    );
  }
  const history = versions.filter((v) => v.version !== definition.version);
  return (
    <div data-testid="locked-definition" className="space-y-3">
      <p className="text-sm">
        <span className="font-medium">Version v{definition.version}</span>
        <span className="text-stone-600 dark:text-stone-400">
          {" "}
          · identity: {definition.identityRule.replaceAll("_", " ")}
        </span>
      </p>
      <ul className="space-y-2">
        {definition.fields.map((f) => (
          <li key={f.name} data-testid={`definition-field-${f.name}`} className="text-sm">
            <span className="font-mono font-medium">{f.name}</span>{" "}
            <span className="rounded bg-stone-100 px-1 text-xs text-stone-700 dark:bg-stone-800 dark:text-stone-300">
              {f.type}
            </span>
            <span className="block text-xs text-stone-600 dark:text-stone-400">{f.description}</span>
            <span className="block text-xs">{f.rule}</span>
            {f.kept?.map((k) => (
              <KeptValue key={k.name} kept={k} />
            ))}
          </li>
        ))}
      </ul>
      {history.length ? (
        <details className="text-sm">
          <summary className="cursor-pointer font-medium">Version history ({versions.length})</summary>
          <ol className="mt-2 space-y-2">
            {versions.map((v) => (
              <li key={v.version}>
                <span className="font-medium">v{v.version}</span>{" "}
                <span className="text-xs text-stone-600 dark:text-stone-400">
                  {v.lockedAt ? (
                    <>
                      locked <LocalTime value={v.lockedAt} />
                    </>
                  ) : (
                    "draft"
                  )}
                  {v.inForce ? " · in force" : ""}
                </span>
                {v.changes?.length ? (
                  <ul className="ml-4 list-disc text-xs">
                    {v.changes.map((c) => (
                      <li key={c}>{c}</li>
                    ))}
                  </ul>
                ) : null}
              </li>
            ))}
          </ol>
        </details>
      ) : null}
    </div>
  );
}

/**
 * A bound value the rule still decides with although its file went: "price-list.txt removed on 6 Dec 2026; using
 * $45.00" — until the person edits the tracker (docs/context-files.md).
 */
function KeptValue({ kept }: { kept: TKept }) {
  const what = kept.reason === "removed" ? "removed" : "replaced without it";
  return (
    <span
      className="block text-xs text-amber-800 dark:text-amber-300"
      data-testid="kept-context-value"
      data-reason={kept.reason}
    >
      {kept.fileName} {what}
      {kept.since ? (
        <>
          {" "}
          on <LocalTime value={kept.since} />
        </>
      ) : null}
      ; using {kept.value} ({kept.name}) until you edit the tracker
    </span>
  );
}
