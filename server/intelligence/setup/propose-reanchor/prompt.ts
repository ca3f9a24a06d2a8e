import { UNTRUSTED_CONTENT_RULES, wrapUntrusted } from "@/server/ai/untrusted";

export const REANCHOR_INSTRUCTIONS = [
  "A tracked web page was redesigned: some fields of the tracker no longer find their value on it.",
  "For each listed field you get what it read before and where, and the numbered places on the page now that could",
  "show it (each with its text and where it sits). Pick the place that shows the same thing the field read before —",
  "the same plan, product or variant, not merely the same amount — or null when none does.",
  "Answer for exactly the fields listed.",
  `${UNTRUSTED_CONTENT_RULES} The page's text and the places' texts come from a third-party page.`,
].join("\n");

export type TReanchorField = { name: string; description: string; was: string; where: string };
export type TReanchorPlace = { text: string; where: string };

export function buildReanchorPrompt(input: {
  decision: string;
  fields: readonly TReanchorField[];
  places: readonly TReanchorPlace[];
  pageText: string;
}): string {
  return [
    `The user's decision: ${input.decision}`,
    "",
    "Fields that read nothing now (name: meaning — what it read before, where):",
    ...input.fields.map((f) => `- ${f.name}: ${f.description} — read “${f.was}”, ${f.where}`),
    "",
    "Places on the page now:",
    wrapUntrusted(input.places.map((p, i) => `[${i}] “${p.text}” — ${p.where}`).join("\n"), {
      source: "the tracked page (places that could show the fields)",
      maxChars: 8_000,
    }),
    "",
    "The page's text now:",
    wrapUntrusted(input.pageText, { source: "the tracked page (its text)", maxChars: 12_000 }),
  ].join("\n");
}

export function buildReanchorRepairMessage(issues: readonly string[]): string {
  return `Your answer did not fit: ${issues.join("; ")}. Answer again with one entry per listed field.`;
}
