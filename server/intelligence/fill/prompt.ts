import { UNTRUSTED_CONTENT_RULES, wrapUntrusted } from "../../ai/untrusted";
import type { TField } from "../definition/field-schema";

/** The model sees at most this much of the capability result. */
export const MAX_FILL_CONTENT_CHARS = 60_000;

export const FILL_INSTRUCTIONS = [
  "You read one web page or data record and fill a fixed, typed record that a user locked to track a decision.",
  "Rules:",
  "- Fill exactly the fields in the JSON schema, no more and no fewer. Never add fields.",
  "- Take values only from the data shown. When the data does not show a field, use null. Do not guess.",
  '- Use the field\'s type: numbers as plain JSON numbers (4.3, not "4.3 stars"), integers as whole numbers, money as {amount, currency} with the ISO 4217 code of the currency shown, booleans only when the data states it explicitly, enums only from the listed values.',
  '- notable_signals: short one-sentence notes about things in the data that matter to the decision but that no field captures (e.g. "Announces closing for renovation in May"). Use [] when there are none. Do not repeat field values there.',
  `- ${UNTRUSTED_CONTENT_RULES}`,
].join("\n");

/** The user message: the decision, the fields to fill (names, types, descriptions), then the data. */
export function buildFillPrompt(input: {
  decision?: string;
  fields: readonly TField[];
  content: string;
  /** Shown to the model as the data's origin, e.g. "web page https://…" or "Google Maps place". */
  source: string;
}): string {
  const fieldLines = input.fields.map((f) => {
    const extras = [
      f.unit ? `unit: ${f.unit}` : null,
      f.currency ? `currency: ${f.currency}` : null,
      f.enumValues ? `one of: ${f.enumValues.join(" | ")}` : null,
    ].filter(Boolean);
    return `- ${f.name} (${f.type}${extras.length ? `; ${extras.join("; ")}` : ""}): ${f.description}`;
  });
  return [
    input.decision ? `The user's decision: ${input.decision}` : null,
    "Fields to fill:",
    ...fieldLines,
    "",
    "The data:",
    wrapUntrusted(input.content, { source: input.source, maxChars: MAX_FILL_CONTENT_CHARS }),
  ]
    .filter((line) => line !== null)
    .join("\n");
}

export function buildFillRepairMessage(issues: readonly string[]): string {
  return [
    "Your answer was rejected because it does not match the schema:",
    ...issues.map((issue) => `- ${issue}`),
    "Answer again with one JSON object that has exactly the schema's fields and types. Put extra observations in notable_signals.",
  ].join("\n");
}

/** What the model reads: the JSON result when there is one, else the page's main text. */
export function contentForModel(raw: { json: unknown; text?: string }): string {
  if (raw.json !== undefined && raw.json !== null)
    return typeof raw.json === "string" ? raw.json : JSON.stringify(raw.json);
  return raw.text ?? "";
}
