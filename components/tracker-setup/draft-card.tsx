"use client";

import { useState } from "react";
import type { TDraftView } from "./types";

type TProps = {
  draft: TDraftView | null;
  /** true while the definition is still being written (streamed). */
  streaming: boolean;
  version: number | null;
  editable: boolean;
  onRemoveField?: (name: string) => void;
  onEditDescription?: (name: string, description: string) => void;
};

/** The live draft definition: fields, identity rule and materiality in plain language. */
export function DraftCard({ draft, streaming, version, editable, onRemoveField, onEditDescription }: TProps) {
  return (
    <section
      aria-labelledby="draft-card-title"
      data-testid="draft-card"
      data-state={streaming ? "streaming" : draft ? "saved" : "empty"}
      className="rounded-xl border border-stone-200 bg-white p-4 dark:border-stone-800 dark:bg-stone-900"
    >
      <div className="flex items-baseline justify-between gap-2">
        <h2 id="draft-card-title" className="text-base font-semibold">
          Draft definition{version ? ` (v${version})` : ""}
        </h2>
        <span className="text-xs text-stone-500" data-testid="draft-field-count" aria-live="polite">
          {streaming ? "writing… " : ""}
          {draft ? `${draft.fields.length} field${draft.fields.length === 1 ? "" : "s"}` : ""}
        </span>
      </div>
      {!draft || draft.fields.length === 0 ? (
        <p className="mt-3 text-sm text-stone-600 dark:text-stone-400">
          {streaming ? "The first fields are on their way…" : "No draft yet. Tell me what to watch, with its address."}
        </p>
      ) : (
        <>
          <ul className="mt-3 space-y-3">
            {draft.fields.map((field) => (
              <FieldRow
                key={field.name}
                field={field}
                editable={editable && !streaming}
                onRemove={onRemoveField}
                onEditDescription={onEditDescription}
              />
            ))}
          </ul>
          <h3 className="mt-4 text-sm font-semibold">Identity</h3>
          <p className="text-sm text-stone-700 dark:text-stone-300" data-testid="draft-identity">
            {draft.identity ?? "—"}
          </p>
          <h3 className="mt-4 text-sm font-semibold">What counts as a change that matters</h3>
          <ul className="mt-1 list-disc pl-5 text-sm text-stone-700 dark:text-stone-300" data-testid="draft-rules">
            {draft.rules.map((rule) => (
              <li key={rule}>{rule}</li>
            ))}
            <li>notable_signals: the agent decides (always present)</li>
          </ul>
        </>
      )}
    </section>
  );
}

function FieldRow({
  field,
  editable,
  onRemove,
  onEditDescription,
}: {
  field: TDraftView["fields"][number];
  editable: boolean;
  onRemove?: (name: string) => void;
  onEditDescription?: (name: string, description: string) => void;
}) {
  const [description, setDescription] = useState(field.description);
  return (
    <li
      data-testid="draft-field"
      data-field-name={field.name}
      className="rounded-md border border-stone-200 p-3 text-sm dark:border-stone-700"
    >
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <span className="font-mono font-medium">{field.name}</span>
        <span className="text-xs text-stone-500">
          {field.type}
          {field.unit ? ` · ${field.unit}` : ""}
          {field.extractor ? ` · ${field.extractor}` : ""}
        </span>
      </div>
      {editable && onEditDescription ? (
        <label className="mt-2 block">
          <span className="sr-only">Description of {field.name}</span>
          <input
            className="w-full rounded border border-stone-300 bg-transparent px-2 py-1 text-sm dark:border-stone-700"
            value={description}
            onChange={(e) => setDescription(e.target.value)}
            onBlur={() => {
              if (description.trim() && description !== field.description) onEditDescription(field.name, description);
            }}
          />
        </label>
      ) : (
        <p className="mt-1 text-stone-600 dark:text-stone-400">{field.description}</p>
      )}
      {editable && onRemove ? (
        <button
          type="button"
          onClick={() => onRemove(field.name)}
          className="mt-2 text-xs text-red-700 underline hover:no-underline dark:text-red-400"
        >
          Remove {field.name}
        </button>
      ) : null}
    </li>
  );
}
