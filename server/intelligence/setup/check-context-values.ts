import { findLabelledNumber } from "../../context";
import type { TTrackerDefinition } from "../definition";
import { matchStatement, namesWhich, readOwnStatements } from "./context-statements";

export type TDraftContextFile = { name: string; text: string };

/**
 * The drafter's bound values checked against the files actually attached (docs/context-files.md): the definition schema already
 * refuses a rule on an unknown or non-numeric field and a value nobody bound; this refuses a value no file states,
 * so a proposal the model made up never reaches the card. A labelled value needs a line with its label and a number
 * (findLabelledNumber, the same reading code rules use); a CSV value needs its row label and column header in a CSV
 * file. A labelled value must also read one line only (two lines starting "our price" with different numbers leave the
 * refresh reading the first), and a rule must compare the field the line names: "our Pro price 16.00" on starter_price
 * is refused (context-statements.ts, the same reading rules mode binds by). Problems are worded for the model's one
 * repair and, failing that, for the person.
 */
export function checkContextValues(definition: TTrackerDefinition, files: readonly TDraftContextFile[]): string[] {
  const problems: string[] = [];
  (definition.contextValues ?? []).forEach((value, index) => {
    const where = `contextValues.${index} (${value.name})`;
    const candidates = value.file ? files.filter((f) => f.name.toLowerCase() === value.file?.toLowerCase()) : files;
    if (files.length === 0) {
      problems.push(`${where}: no context file is attached to this tracker, so there is nothing to bind`);
    } else if (candidates.length === 0) {
      problems.push(
        `${where}: no attached file is named “${value.file}” (attached: ${files.map((f) => f.name).join(", ")})`,
      );
    } else if (value.column) {
      const has = (text: string, word: string) => text.toLowerCase().includes(word.toLowerCase());
      if (!candidates.some((f) => has(f.text, value.label) && has(f.text, value.column ?? ""))) {
        problems.push(`${where}: no attached file has a row “${value.label}” with a column “${value.column}”`);
      }
    } else if (!candidates.some((f) => findLabelledNumber(f.text, value.label))) {
      problems.push(`${where}: no attached file states “${value.label}” followed by a number`);
    } else {
      problems.push(...lineProblems(definition, value, candidates, where));
    }
  });
  return problems;
}

/** The line a labelled value reads: one line only, and about the field its rules compare. */
function lineProblems(
  definition: TTrackerDefinition,
  value: { name: string; label: string },
  files: readonly TDraftContextFile[],
  where: string,
): string[] {
  const file = files.find((f) => findLabelledNumber(f.text, value.label));
  if (!file) return [];
  const read = findLabelledNumber(file.text, value.label);
  const lines = file.text.split("\n").filter((line) => findLabelledNumber(line, value.label));
  const numbers = new Set(lines.map((line) => findLabelledNumber(line, value.label)?.value));
  if (numbers.size > 1) {
    return [
      `${where}: “${value.label}” starts ${lines.length} lines of ${file.name} with different numbers (${lines
        .slice(0, 3)
        .map((l) => `“${l.trim()}”`)
        .join(", ")}); the label must be the words that single out one line (include what comes before “our”)`,
    ];
  }
  const statement = readOwnStatements(file).find((s) => s.quote === read?.quote);
  if (!statement) return [];
  const problems: string[] = [];
  for (const rule of definition.contextRules ?? []) {
    if (rule.value !== value.name) continue;
    // A line that names nothing ("our price is 10.00") may be compared with any number; one that names something
    // ("our Pro price") only with a field whose name or description names it too (one of several that do).
    const match = matchStatement(statement, definition.fields);
    const fits =
      !namesWhich(statement, definition.fields) ||
      match.kind === "none" ||
      (match.kind === "field" && match.field.name === rule.field) ||
      (match.kind === "unclear" && match.why === "several" && match.fields.some((f) => f.name === rule.field));
    if (!fits) {
      const named = match.kind === "field" ? ` — it names ${match.field.name}` : "";
      problems.push(
        `contextRules (${rule.field}): “${statement.quote}” in ${file.name} is not about ${rule.field}${named}; compare the field the line names, or ask the person which field it is`,
      );
    }
  }
  return problems;
}
