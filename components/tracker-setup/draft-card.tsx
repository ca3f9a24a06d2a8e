"use client";

import { useEffect, useRef, useState } from "react";
import { describeNotableSignals } from "@/contracts/definition/describe-rule";
import type { TField } from "@/contracts/definition/field-schema";
import type { TMaterialityRule } from "@/contracts/definition/materiality-rule-schema";
import { SCHEDULE_OPTIONS } from "@/contracts/schedule";
import {
  addField,
  asCardDefinition,
  DEFAULT_RULE_FORM,
  EMPTY_FIELD_FORM,
  fieldToForm,
  removeField,
  replaceField,
  ruleToForm,
  type TCardDefinition,
} from "./card-edits";
import { FieldEditor } from "./field-editor";
import { ReadModeSwitch } from "./read-mode-switch";
import type { TDraftView } from "./types";

type TProps = {
  draft: TDraftView | null;
  /** true while the definition is still being written (streamed). */
  streaming: boolean;
  version: number | null;
  editable: boolean;
  /** The saved draft definition (what direct edits start from). */
  definition?: unknown;
  /** How often the tracker will check, in minutes (the tracker's schedule). */
  scheduleMinutes?: number;
  /** Saves an edited definition through the server (validated there); rejects with a readable message. */
  onSaveDefinition?: (definition: unknown) => Promise<void>;
  /** Switches how the page is read (web.scrape `render`); the server re-reads the sample that way. */
  onSetReadMode?: (mode: NonNullable<TDraftView["readMode"]>["mode"]) => Promise<void>;
  /** A model is configured (the page's system status): else no agent reads or judges anything (rules mode). */
  aiOn: boolean;
};

/** The live draft definition: fields, identity rule and materiality in plain language, editable in place. */
export function DraftCard({
  draft,
  streaming,
  version,
  editable,
  definition,
  scheduleMinutes,
  onSaveDefinition,
  onSetReadMode,
  aiOn,
}: TProps) {
  const current = asCardDefinition(definition);
  const canEdit = editable && !streaming && !!current && !!onSaveDefinition;
  const [adding, setAdding] = useState(false);
  const addButtonRef = useRef<HTMLButtonElement>(null);
  const returnFocus = useRef(false);
  const closeAdd = () => {
    returnFocus.current = true;
    setAdding(false);
  };
  // Keyboard users land back on "Add a field" once its form has closed.
  useEffect(() => {
    if (adding || !returnFocus.current) return;
    returnFocus.current = false;
    addButtonRef.current?.focus();
  }, [adding]);

  const save = async (change: (d: TCardDefinition) => TCardDefinition) => {
    if (!current || !onSaveDefinition) throw new Error("There is no saved draft to edit yet.");
    await onSaveDefinition(change(current));
  };

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
        <span className="text-xs text-stone-600 dark:text-stone-400" data-testid="draft-field-count" aria-live="polite">
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
            {draft.fields.map((field, index) => {
              const full = current?.fields.find((f) => f.name === field.name);
              return (
                <FieldRow
                  key={field.name}
                  field={field}
                  rule={draft.rules[index] ?? null}
                  full={canEdit ? full : undefined}
                  materiality={full ? current?.materiality[full.name] : undefined}
                  onSave={(next, rule) => save((d) => replaceField(d, field.name, next, rule))}
                  onRemove={() => save((d) => removeField(d, field.name))}
                  aiOn={aiOn}
                />
              );
            })}
          </ul>
          {canEdit ? (
            adding ? (
              <FieldEditor
                mode="add"
                aiOn={aiOn}
                initialField={EMPTY_FIELD_FORM}
                initialRule={DEFAULT_RULE_FORM}
                onSubmit={async (next, rule) => {
                  await save((d) => addField(d, next, rule));
                  closeAdd();
                }}
                onCancel={() => {
                  closeAdd();
                }}
              />
            ) : (
              <button
                ref={addButtonRef}
                type="button"
                onClick={() => setAdding(true)}
                className="mt-3 text-sm font-medium text-stone-800 underline hover:no-underline dark:text-stone-200"
              >
                + Add a field
              </button>
            )
          ) : null}
          <h3 className="mt-4 text-sm font-semibold">Identity</h3>
          <p className="text-sm text-stone-700 dark:text-stone-300" data-testid="draft-identity">
            {draft.identity ?? "—"}
          </p>
          {draft.reading ? (
            <>
              <h3 className="mt-4 text-sm font-semibold">How the page is read</h3>
              <p className="text-sm text-stone-700 dark:text-stone-300" data-testid="draft-reading">
                {draft.reading}
              </p>
              {draft.readMode && onSetReadMode && editable ? (
                <ReadModeSwitch readMode={draft.readMode} disabled={streaming} onChange={onSetReadMode} />
              ) : null}
            </>
          ) : null}
          {scheduleMinutes ? (
            <>
              <h3 className="mt-4 text-sm font-semibold">How often</h3>
              <p className="text-sm text-stone-700 dark:text-stone-300" data-testid="draft-schedule">
                {scheduleLabel(scheduleMinutes)}
              </p>
            </>
          ) : null}
          <h3 className="mt-4 text-sm font-semibold">What counts as a change that matters</h3>
          <ul className="mt-1 list-disc pl-5 text-sm text-stone-700 dark:text-stone-300" data-testid="draft-rules">
            {draft.rules.map((rule) => (
              <li key={rule}>{rule}</li>
            ))}
            <li>{describeNotableSignals(aiOn ? "agent" : "rules")}</li>
          </ul>
        </>
      )}
    </section>
  );
}

function scheduleLabel(minutes: number): string {
  const option = SCHEDULE_OPTIONS.find((o) => o.minutes === minutes);
  if (option) return `Checks ${option.label.charAt(0).toLowerCase()}${option.label.slice(1)}`;
  return `Checks every ${minutes} minutes`;
}

function FieldRow({
  field,
  rule,
  full,
  materiality,
  onSave,
  onRemove,
  aiOn,
}: {
  field: TDraftView["fields"][number];
  /** Plain-language rule (describeRule). */
  rule: string | null;
  /** The field's full definition when it can be edited. */
  full?: TField;
  materiality?: TMaterialityRule;
  onSave: (field: TField, rule: TMaterialityRule) => Promise<void>;
  onRemove: () => Promise<void>;
  aiOn: boolean;
}) {
  const [editing, setEditing] = useState(false);
  const [removeError, setRemoveError] = useState<string | null>(null);
  const editButtonRef = useRef<HTMLButtonElement>(null);
  const returnFocus = useRef(false);
  const close = () => {
    returnFocus.current = true;
    setEditing(false);
  };
  // Back to where the keyboard was once the editor has closed (the Edit button is rendered again).
  useEffect(() => {
    if (editing || !returnFocus.current) return;
    returnFocus.current = false;
    editButtonRef.current?.focus();
  }, [editing]);

  return (
    <li
      data-testid="draft-field"
      data-field-name={field.name}
      className="rounded-md border border-stone-200 p-3 text-sm dark:border-stone-700"
    >
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <span className="font-mono font-medium">{field.name}</span>
        <span className="text-xs text-stone-600 dark:text-stone-400" data-testid="draft-field-type">
          {field.type}
          {field.unit ? ` · ${field.unit}` : ""}
          {field.extractor ? ` · ${field.extractor}` : ""}
        </span>
      </div>
      <p className="mt-1 text-stone-600 dark:text-stone-400">{field.description}</p>
      {rule ? (
        <p className="mt-1 text-xs text-stone-700 dark:text-stone-300" data-testid="draft-field-rule">
          {rule}
        </p>
      ) : null}
      {full && editing ? (
        <FieldEditor
          mode="edit"
          aiOn={aiOn}
          initialField={fieldToForm(full)}
          initialRule={ruleToForm(materiality)}
          base={full}
          onSubmit={async (next, nextRule) => {
            await onSave(next, nextRule);
            close();
          }}
          onCancel={close}
        />
      ) : null}
      {full && !editing ? (
        <div className="mt-2 flex gap-3">
          <button
            ref={editButtonRef}
            type="button"
            onClick={() => setEditing(true)}
            className="text-xs text-stone-800 underline hover:no-underline dark:text-stone-200"
          >
            Edit {field.name}
          </button>
          <button
            type="button"
            onClick={() => {
              setRemoveError(null);
              onRemove().catch((e: unknown) => setRemoveError(e instanceof Error ? e.message : String(e)));
            }}
            className="text-xs text-red-700 underline hover:no-underline dark:text-red-400"
          >
            Remove {field.name}
          </button>
        </div>
      ) : null}
      {removeError ? (
        <p role="alert" className="mt-1 text-xs text-red-700 dark:text-red-400" data-testid="card-edit-error">
          {removeError}
        </p>
      ) : null}
    </li>
  );
}
