import { anchorElementInWorker, type TCapabilityConfig } from "../../capabilities";
import type { TDb } from "../../db";
import { AppError } from "../../errors";
import type { TField, TMaterialityRule, TTrackerDefinition } from "../definition";
import { coerceValue } from "../fill/coerce-value";
import { parseMoneyText } from "../fill/parse-number-text";
import { toFieldName } from "./fallback";
import { stripCta } from "./price-candidates";
import { saveSetupDraft, type TSavedSetupDraft } from "./save-setup-draft";
import { getSetupState } from "./session";
import { loadSetupPage } from "./setup-page-store";

/**
 * Pointing at an element in the page view (docs/page-view.md): the element the person clicked, tapped or chose
 * becomes what a field reads — an existing field keeps its name, type and rule; a new field is typed from the
 * element's text. The anchor is the best the page offers (anchor-element.ts: id, microdata, a named part, the
 * heading or label, the row, classes, a position last), checked on the sample to read that element alone, and
 * the value it reads is checked to fit the field before the draft is saved.
 */

const PRICE_RULE: TMaterialityRule = { kind: "numeric", relative: 0.01 };

/** A new field's type from the element's text: a price with a currency, a bare number, else text. */
function fieldFor(text: string): Pick<TField, "type" | "currency"> & { rule: TMaterialityRule } {
  const money = parseMoneyText(text);
  if (money?.currency && /^[A-Z]{3}$/.test(money.currency))
    return { type: "money", currency: money.currency, rule: PRICE_RULE };
  if (money && /^[^\p{L}]*\d[\d.,\s]*[^\p{L}]*$/u.test(text)) return { type: "number", rule: PRICE_RULE };
  return { type: "string", rule: text.length > 120 ? { kind: "ask_agent" } : { kind: "any_change" } };
}

export async function pointAtElement(
  db: TDb,
  input: { userId: string; sessionId: string; element: number; field: string | null; config: TCapabilityConfig },
): Promise<{ draft: TSavedSetupDraft; said: string[] }> {
  const state = await getSetupState(db, input);
  if (!state.draft) throw new AppError("PRECONDITION_FAILED", "There is no draft to change yet.");
  const page = await loadSetupPage(db, input);
  if (!page) throw new AppError("PRECONDITION_FAILED", "There is no page to point at yet; read the page first.");
  const definition: TTrackerDefinition = state.draft.definition;
  const existing = input.field ? definition.fields.find((f) => f.name === input.field) : undefined;
  if (input.field && !existing) throw new AppError("NOT_FOUND", `The draft has no field “${input.field}”.`);

  const pointed = await anchorElementInWorker(page.html, input.element, input.config.fetch.page);
  if (!pointed.found)
    throw new AppError("NOT_FOUND", "That element is not on the page as it was read; read the page again.");
  const anchor = pointed.anchors[0];
  if (!anchor)
    throw new AppError(
      "BAD_REQUEST",
      "Nothing on the page tells that element apart from the ones around it; point at the element itself or one near it.",
    );
  if (!pointed.text) throw new AppError("BAD_REQUEST", "That element shows no text to read; point at one that does.");
  const extractor = { kind: "css" as const, selector: anchor.selector };

  const was = `${anchor.words} (was “${pointed.text.slice(0, 80)}” in the sample)`;
  let field: TField;
  let rule: TMaterialityRule | undefined;
  const named = /“([^”]+)”/.exec(anchor.words)?.[1];
  const words = named ? stripCta(named) || named : undefined;
  if (existing) {
    const meaning = existing.description.split(" — ")[0] || existing.name;
    // A draft's price field named after what it read ("solo_price") is named after what it reads now ("duo_price");
    // a locked tracker's keeps its name, so its timeline goes on under it.
    let name = existing.name;
    const locked = state.tracker?.lockedVersion != null;
    if (words && !locked && /_price$/.test(name) && existing.type !== "string") {
      const base = toFieldName(`${words} price`);
      name = base;
      for (let i = 2; definition.fields.some((f) => f !== existing && f.name === name); i++) name = `${base}_${i}`;
    }
    field = { ...existing, name, extractor, description: `${meaning} — ${was}`.slice(0, 500) };
    const fits = coerceValue(field, pointed.text);
    if (!fits.ok)
      throw new AppError(
        "BAD_REQUEST",
        `“${pointed.text.slice(0, 60)}” does not read as ${existing.name} (${existing.type}): ${fits.reason}. Point at another element, or make it a new field.`,
      );
  } else {
    const kind = fieldFor(pointed.text);
    const base = toFieldName(words ? `${words} ${kind.type === "string" ? "text" : "price"}` : `${pointed.tag} value`);
    let name = base;
    for (let i = 2; definition.fields.some((f) => f.name === name); i++) name = `${base}_${i}`;
    field = {
      name,
      type: kind.type,
      ...(kind.currency ? { currency: kind.currency } : {}),
      description: `What the page shows — ${was}`.slice(0, 500),
      extractor,
    };
    rule = kind.rule;
  }
  const fields = existing ? definition.fields.map((f) => (f === existing ? field : f)) : [...definition.fields, field];
  const materiality = { ...definition.materiality };
  if (existing && field.name !== existing.name) {
    const kept = materiality[existing.name];
    delete materiality[existing.name];
    if (kept) materiality[field.name] = kept;
  }
  if (rule) materiality[field.name] = rule;
  // Context rules follow a renamed field ("price drops below our_price").
  const contextRules = definition.contextRules?.map((r) =>
    existing && r.field === existing.name ? { ...r, field: field.name } : r,
  );
  const draft = await saveSetupDraft(db, {
    userId: input.userId,
    sessionId: input.sessionId,
    definition: { ...definition, fields, materiality, ...(contextRules ? { contextRules } : {}) },
  });
  const said = [
    `Now ${field.name} reads ${anchor.words}: “${pointed.text.slice(0, 80)}” on the sample.`,
    ...(anchor.kind === "position"
      ? ["Nothing names that element, so it is found by its position; if the page is rearranged, point at it again."]
      : []),
    ...(existing
      ? [`${field.name === existing.name ? "It" : `It replaces ${existing.name} and`} keeps its rule.`]
      : [`It is a new ${field.type} field.`]),
  ];
  return { draft, said };
}
