import { SCHEDULE_OPTIONS } from "@/contracts/schedule";
import {
  describeRule,
  isNumericFieldType,
  type TField,
  type TMaterialityRule,
  type TTrackerDefinition,
} from "../definition";
import type { TChatEdit } from "./parse-chat-edit";

export type TAppliedChatEdits =
  | {
      ok: true;
      definition: TTrackerDefinition;
      /** Set when the message changed how often the tracker checks. */
      scheduleMinutes: number | null;
      /** What changed, one plain sentence each (the reply says them). */
      said: string[];
      /**
       * Set when a field was chosen on a guess ("it" on a card of several numbers, a name several fields fit): the
       * sentence saying which and how to name another. Rules mode applies and says it; after a model's turn it is asked.
       */
      guessed: string | null;
    }
  | { ok: false; message: string };

/**
 * Applies parsed chat edits (parse-chat-edit.ts) to the draft, all or nothing: a field that is not on the
 * card, a threshold on a text field, an amount in another currency or a schedule the app does not offer
 * stops the whole message with a sentence saying why. A threshold replaces the field's rule as stated —
 * "only if it drops more than 10 %" leaves no drafted 1 % beside it. The result is validated again when saved.
 */
export function applyChatEdits(definition: TTrackerDefinition, edits: TChatEdit[]): TAppliedChatEdits {
  let fields = [...definition.fields];
  const materiality: Record<string, TMaterialityRule> = { ...definition.materiality };
  let scheduleMinutes: number | null = null;
  const said: string[] = [];
  let guessed: string | null = null;

  for (const edit of edits) {
    switch (edit.kind) {
      case "level":
        return {
          ok: false,
          message:
            "The card's rules judge how much a value moves (by an amount or a percentage), not whether it crosses a level such as “below 40”.",
        };
      case "schedule": {
        const option = SCHEDULE_OPTIONS.find((o) => o.minutes === edit.minutes);
        if (!option) {
          return {
            ok: false,
            message: `I can check ${SCHEDULE_OPTIONS.map((o) => o.label.toLowerCase()).join(", ")} — not every ${formatMinutes(edit.minutes)}.`,
          };
        }
        scheduleMinutes = option.minutes;
        said.push(`It checks ${option.label.charAt(0).toLowerCase()}${option.label.slice(1)}.`);
        break;
      }
      case "threshold": {
        const found = findField(fields, edit.field, { numeric: true });
        if (!found.ok) return found;
        const field = found.field;
        if (edit.currency && field.type === "money" && field.currency && edit.currency !== field.currency) {
          return {
            ok: false,
            message: `${field.name} is in ${field.currency}; give the amount in ${field.currency} (or as a percentage).`,
          };
        }
        const rule: TMaterialityRule = {
          kind: "numeric",
          ...(edit.absolute === undefined ? {} : { absolute: edit.absolute }),
          ...(edit.relative === undefined ? {} : { relative: edit.relative }),
          ...(edit.direction === "any" ? {} : { direction: edit.direction }),
          ...(edit.combine ? { combine: edit.combine } : {}),
        };
        materiality[field.name] = rule;
        said.push(`${describeRule(field, rule)}.`);
        if (found.note) {
          said.push(found.note);
          guessed = found.note;
        }
        break;
      }
      case "remove": {
        const found = findField(fields, edit.field, { numeric: false });
        if (!found.ok) return found;
        if (fields.length === 1) {
          return { ok: false, message: `${found.field.name} is the only field; a tracker needs at least one.` };
        }
        fields = fields.filter((f) => f.name !== found.field.name);
        delete materiality[found.field.name];
        said.push(`Removed ${found.field.name}.`);
        break;
      }
      case "ignore":
      case "any_change": {
        const found = findField(fields, edit.field, { numeric: false });
        if (!found.ok) return found;
        const rule: TMaterialityRule = { kind: edit.kind };
        materiality[found.field.name] = rule;
        said.push(`${describeRule(found.field, rule)}.`);
        break;
      }
    }
  }
  return { ok: true, definition: { ...definition, fields, materiality }, scheduleMinutes, said, guessed };
}

type TFound = { ok: true; field: TField; note: string } | { ok: false; message: string };

/**
 * The field a reference names. Every word of the reference must be a word of the field's name
 * ("pro price" → acme_pro_price), or the other way round ("the monthly acme pro price"). No reference
 * ("it") is the card's first number. Several matches: a threshold takes the first number (and says
 * so); a removal asks which one — nothing is removed on a guess.
 */
function findField(fields: TField[], ref: string | null, options: { numeric: boolean }): TFound {
  const numbers = fields.filter((f) => isNumericFieldType(f.type));
  if (ref === null) {
    const first = numbers[0];
    if (!first) return { ok: false, message: "There is no number or money field on the card to put a threshold on." };
    const note =
      numbers.length > 1
        ? `That is ${first.name}, the card's first number; name another field to change that one.`
        : "";
    return { ok: true, field: first, note };
  }
  const words = toWords(ref);
  const exact = fields.find((f) => f.name === words.join("_"));
  const matches = exact
    ? [exact]
    : fields.filter((f) => {
        const name = toWords(f.name);
        return words.every((w) => name.includes(w)) || name.every((w) => words.includes(w));
      });
  if (matches.length === 0) {
    return {
      ok: false,
      message: `There is no field like “${ref}” on the card (its fields: ${fields.map((f) => f.name).join(", ")}).`,
    };
  }
  if (options.numeric) {
    const numeric = matches.filter((f) => isNumericFieldType(f.type));
    const first = numeric[0];
    if (!first) {
      const f = matches[0] as TField;
      return {
        ok: false,
        message: `${f.name} is ${f.type === "string" ? "text" : f.type}; a threshold needs a number or money field.`,
      };
    }
    const note =
      numeric.length > 1
        ? `“${ref}” could be ${numeric.map((f) => f.name).join(" or ")}; I took ${first.name} — name the other to change it instead.`
        : "";
    return { ok: true, field: first, note };
  }
  const only = matches.length === 1 ? matches[0] : undefined;
  if (!only) return { ok: false, message: `Which one: ${matches.map((f) => f.name).join(" or ")}?` };
  return { ok: true, field: only, note: "" };
}

/** "Team-plan prices" → ["team", "plan", "price"]: lower case, split on anything not a letter or digit, plural s dropped. */
function toWords(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .map((w) => (w.length > 3 && w.endsWith("s") && !w.endsWith("ss") ? w.slice(0, -1) : w));
}

function formatMinutes(minutes: number): string {
  if (minutes % 1440 === 0) return minutes === 1440 ? "day" : `${minutes / 1440} days`;
  if (minutes % 60 === 0) return minutes === 60 ? "hour" : `${minutes / 60} hours`;
  return minutes === 1 ? "minute" : `${minutes} minutes`;
}
