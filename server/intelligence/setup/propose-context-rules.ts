import { describeContextRule, type TContextValue } from "@/contracts/definition/context-rule-schema";
import type { TField, TTrackerDefinition } from "../definition";
import { AFFIRMATIVE, fieldNamedIn, matchStatement, readOwnStatements, type TOwnStatement } from "./context-statements";

export type TContextProposal = {
  definition: TTrackerDefinition;
  /** Whether a value was bound (the draft must be saved). */
  changed: boolean;
  /** What was bound, one sentence each, and what was left unbound and why. */
  said: string[];
  /** Lines whose field is unclear: one question each (the person answers with the field's name, or "yes"). */
  questions: string[];
  /** `answer` bound a line an earlier question had asked about. */
  answered: boolean;
};

/**
 * Rules mode's proposal when files are attached while drafting (docs/context-files.md, "While drafting"): each line
 * stating one of the person's own numbers ("our Pro price 16.00") binds `our_<field>` for the field its words name
 * (context-statements.ts) and adds "material when it drops below our_<field>". Where the words fit several fields, or
 * only a field they do not name, it asks instead of guessing; `answer` is the person's reply to such a question (asked
 * before, as `wasAsked` says): a field's name, or "yes" when one field was offered. Fields that already have a context
 * rule are left alone. Deterministic; null when the files state nothing the card's numbers could use.
 */
export function proposeContextRules(
  definition: TTrackerDefinition,
  files: readonly { name: string; text: string }[],
  options: { answer?: string | null; wasAsked?: (quote: string) => boolean } = {},
): TContextProposal | null {
  const values = [...(definition.contextValues ?? [])];
  const rules = [...(definition.contextRules ?? [])];
  const said: string[] = [];
  const questions: string[] = [];
  let answeredAny = false;
  const ruled = (f: TField) => rules.some((r) => r.field === f.name);

  const bind = (statement: TOwnStatement, field: TField): void => {
    if (!statement.label) {
      said.push(
        `Your file “${statement.file}” says “${statement.quote}”, but another line starts with the same words, so code could not read this one back; write it on its own as “our ${wordsFor(statement, field)} is ${statement.value}” to bind it.`,
      );
      return;
    }
    const name = `our_${field.name}`.slice(0, 40);
    if (values.some((v) => v.name === name)) return;
    const value: TContextValue = { name, label: statement.label, file: statement.file };
    const rule = { field: field.name, value: name, when: "drops_below" as const };
    values.push(value);
    rules.push(rule);
    said.push(
      `Your file “${statement.file}” says “${statement.quote}”, so I added ${describeContextRule(rule, [value])}.`,
    );
  };

  for (const file of files) {
    const unbound: TOwnStatement[] = [];
    let used = false;
    for (const statement of readOwnStatements(file)) {
      const match = matchStatement(statement, definition.fields);
      if (match.kind === "none") continue;
      if (match.kind === "other") {
        unbound.push(statement);
        continue;
      }
      const open = (match.kind === "field" ? [match.field] : match.fields).filter((f) => !ruled(f));
      if (open.length === 0) {
        used = true;
        continue;
      }
      used = true;
      if (match.kind === "field" && match.field) {
        bind(statement, match.field);
        continue;
      }
      const answered =
        options.answer && options.wasAsked?.(statement.quote)
          ? open.length === 1 && AFFIRMATIVE.test(options.answer)
            ? (open[0] ?? null)
            : fieldNamedIn(options.answer, open)
          : null;
      if (answered) {
        bind(statement, answered);
        answeredAny = true;
      } else questions.push(question(statement, open));
    }
    // A list of other plans' prices says nothing about this card; one line so the person knows it was read.
    const first = unbound[0];
    if (!used && first) {
      const fields = matchStatement(first, definition.fields);
      const names = fields.kind === "other" ? fields.fields.map((f) => f.name).join(", ") : "";
      said.push(
        `Your file “${file.name}” says “${first.quote}”${unbound.length > 1 ? ` (and ${unbound.length - 1} more like it)` : ""}, which names none of the card's numbers (${names}), so I bound nothing from it.`,
      );
    }
  }
  if (said.length === 0 && questions.length === 0 && !answeredAny) return null;
  const changed = rules.length !== (definition.contextRules ?? []).length;
  return {
    definition: changed ? { ...definition, contextValues: values, contextRules: rules } : definition,
    changed,
    said,
    questions,
    answered: answeredAny,
  };
}

function question(statement: TOwnStatement, fields: TField[]): string {
  const where = `Your file “${statement.file}” says “${statement.quote}”`;
  const only = fields.length === 1 ? fields[0] : undefined;
  if (only) {
    return `${where}, but ${only.name} does not say it is about that. Is ${only.name} what that line is about? Answer “yes” to compare ${only.name} with it; until then I bind nothing from it.`;
  }
  const names = fields.map((f) => f.name);
  return `${where}: which of the card's numbers does it compare with — ${names.slice(0, -1).join(", ")} or ${names.at(-1)}? Answer with the field's name; until then I bind nothing from it.`;
}

/** "pro price": the line's own words with the field's kind last, for an example of how to write it. */
function wordsFor(statement: TOwnStatement, field: TField): string {
  const head = field.name.split("_").at(-1) ?? "value";
  return [...statement.qualifiers.filter((w) => w !== head), head].join(" ");
}
