import { describeContextRule, type TContextRule, type TContextValue } from "@/contracts/definition/context-rule-schema";
import type { TDraftView } from "@/contracts/setup-ui-message";
import { describeRule, type TJudgeMode, type TMaterialityRule } from "../definition";
import { currentJudgeMode } from "../judge/judge-mode";
import { readModeView } from "./read-mode";

const IDENTITY_TEXT: Record<string, string> = {
  place_id: "The Google Maps place id identifies what is tracked",
  canonical_url: "The page's canonical URL identifies what is tracked",
  input: "The address you gave identifies what is tracked",
};

/**
 * The draft card's view of a definition — also of a partial one while it streams in, so every
 * property is read defensively. Rules are described in plain language by describeRule; a field left to the agent
 * as `judge` will really decide it (the server's mode unless given).
 */
export function toDraftView(
  definition: unknown,
  target?: { capability: string; input: unknown },
  judge: TJudgeMode = currentJudgeMode(),
): TDraftView {
  const d = isRecord(definition) ? definition : {};
  const fields = (Array.isArray(d.fields) ? d.fields : []).filter(isRecord).flatMap((f) => {
    if (typeof f.name !== "string" || !f.name) return [];
    return [
      {
        name: f.name,
        type: typeof f.type === "string" ? f.type : "",
        unit: typeof f.unit === "string" ? f.unit : typeof f.currency === "string" ? f.currency : null,
        description: typeof f.description === "string" ? f.description : "",
        extractor: describeExtractor(f.extractor),
      },
    ];
  });
  const identityKind = isRecord(d.identityRule) && typeof d.identityRule.kind === "string" ? d.identityRule.kind : null;
  const materiality = isRecord(d.materiality) ? d.materiality : {};
  const rules = fields.map((field) => {
    const rule = materiality[field.name];
    const known = isRecord(rule) && typeof rule.kind === "string" ? (rule as TMaterialityRule) : undefined;
    // A field left to the agent (no rule, or "ask the agent") reads as `judge` decides it (describeRule); guidance
    // still streaming in may not be text yet.
    const described =
      known?.kind === "ask_agent" && typeof known.guidance !== "string" ? ({ kind: "ask_agent" } as const) : known;
    try {
      // A rule still streaming in may have a half-written kind that describes as nothing yet.
      const text: unknown = describeRule({ name: field.name, unit: field.unit ?? undefined }, described, judge);
      return typeof text === "string" ? text : `${field.name}: …`;
    } catch {
      return describeRule({ name: field.name }, undefined, judge);
    }
  });
  // Context rules (docs/context-files.md) after the fields' own: "price: material when it drops below our_price (…)".
  const values = (Array.isArray(d.contextValues) ? d.contextValues : []).filter(isRecord) as TContextValue[];
  for (const rule of (Array.isArray(d.contextRules) ? d.contextRules : []).filter(isRecord)) {
    if (typeof rule.field !== "string" || typeof rule.value !== "string") continue;
    if (rule.when !== "drops_below" && rule.when !== "rises_above") continue;
    rules.push(describeContextRule(rule as TContextRule, values));
  }
  const view: TDraftView = {
    fields,
    identity: identityKind ? (IDENTITY_TEXT[identityKind] ?? identityKind) : null,
    rules,
  };
  const reading = target ? describeReading(target) : null;
  if (reading) view.reading = reading;
  const readMode = target ? readModeView(target) : null;
  if (readMode) view.readMode = readMode;
  return view;
}

/**
 * The card's line about how a web page is read (docs/page-reading.md, "Pages that need a browser"): the sample decided it (bind-and-sample.ts
 * remembers a page that only JavaScript fills as `autoRender`), and people should know a browser is involved.
 */
export function describeReading(target: { capability: string; input: unknown }): string | null {
  if (target.capability !== "web.scrape" || !isRecord(target.input)) return null;
  const { render, autoRender } = target.input;
  if (render === "always") return "Always rendered in a browser before reading (render: always).";
  if (render === "never") return "Read with a plain fetch, never in a browser (render: never).";
  return autoRender === true
    ? "Rendered in a browser: the sample page builds its content with JavaScript, so a plain fetch sees an empty page (render: auto)."
    : "Read with a plain fetch: the sample page has its content in the HTML (render: auto — a browser is used only if it turns into an empty app shell).";
}

function describeExtractor(extractor: unknown): string | null {
  if (!isRecord(extractor)) return null;
  switch (extractor.kind) {
    case "json_pointer":
      return typeof extractor.pointer === "string" ? `JSON pointer ${extractor.pointer}` : "JSON pointer";
    case "css":
      return typeof extractor.selector === "string"
        ? `CSS ${extractor.selector}${typeof extractor.attribute === "string" ? ` @${extractor.attribute}` : ""}`
        : "CSS selector";
    case "regex":
      return typeof extractor.pattern === "string" ? `regex /${extractor.pattern}/` : "regex";
    default:
      return null;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
