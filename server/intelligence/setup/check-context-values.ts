import { findLabelledNumber } from "../../context";
import type { TTrackerDefinition } from "../definition";

export type TDraftContextFile = { name: string; text: string };

/**
 * The drafter's bound values checked against the files actually attached (docs/context-files.md): the definition schema already
 * refuses a rule on an unknown or non-numeric field and a value nobody bound; this refuses a value no file states,
 * so a proposal the model made up never reaches the card. A labelled value needs a line with its label and a number
 * (findLabelledNumber, the same reading code rules use); a CSV value needs its row label and column header in a CSV
 * file. Problems are worded for the model's one repair and, failing that, for the person.
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
    }
  });
  return problems;
}
