import type { TField, TMaterialityRule, TTrackerDefinition } from "../definition";
import { parseDefinition } from "../definition";

/**
 * Rules-mode drafter: derives a definition from the sample's structure alone, with deterministic
 * extractors (JSON pointers into what the fill step reads: the JSON body for JSON pages, else the
 * structured document; the normalized place for maps.place) and conservative materiality — numbers
 * and prices move on 1%, everything else is left to the judge (which, in rules mode, marks it notable).
 */

const MAX_FIELDS = 12;
const PRICE_NAME = /price|cost|amount|fee|plan|total/i;

type TDraft = { fields: TField[]; materiality: Record<string, TMaterialityRule> };

export function draftFromSample(capability: string, results: unknown): TTrackerDefinition {
  const r = (results ?? {}) as Record<string, unknown>;
  const draft: TDraft = { fields: [], materiality: {} };
  let identityRule: TTrackerDefinition["identityRule"];

  if (capability === "maps.place" && isRecord(r.place)) {
    fromPlace(draft, r.place);
    identityRule = { kind: "place_id" };
  } else if (r.json !== undefined) {
    fromJson(draft, r.json, "", 0);
    identityRule = { kind: "input" };
  } else {
    fromDocument(draft, isRecord(r.document) ? r.document : {});
    identityRule = { kind: "canonical_url" };
  }
  if (draft.fields.length === 0) {
    add(
      draft,
      { name: "main_text", type: "string", description: "The page's main text", ptr: "/mainText" },
      {
        kind: "ask_agent",
      },
    );
  }
  const definition = { fields: draft.fields, identityRule, materiality: draft.materiality };
  const parsed = parseDefinition(definition);
  // Every piece above is built to validate; if it ever does not, that is a bug worth surfacing.
  if (!parsed.ok) throw new Error(`rules-mode draft does not validate: ${parsed.errors.join("; ")}`);
  return parsed.definition;
}

type TFieldSpec = {
  name: string;
  type: TField["type"];
  description: string;
  ptr: string;
  unit?: string;
  currency?: string;
};

function add(draft: TDraft, spec: TFieldSpec, rule: TMaterialityRule) {
  if (draft.fields.length >= MAX_FIELDS) return;
  let name = toFieldName(spec.name);
  for (let i = 2; draft.fields.some((f) => f.name === name); i++) name = `${toFieldName(spec.name)}_${i}`;
  const field: TField = {
    name,
    type: spec.type,
    description: spec.description.slice(0, 500),
    extractor: { kind: "json_pointer", pointer: spec.ptr },
  };
  if (spec.unit) field.unit = spec.unit;
  if (spec.currency) field.currency = spec.currency;
  draft.fields.push(field);
  draft.materiality[name] = rule;
}

const PRICE_RULE: TMaterialityRule = { kind: "numeric", relative: 0.01 };
const TEXT_RULE: TMaterialityRule = { kind: "ask_agent" };
const ANY_RULE: TMaterialityRule = { kind: "any_change" };

function fromDocument(draft: TDraft, doc: Record<string, unknown>) {
  // JSON-LD offers first: they are the page's own machine-readable prices.
  const jsonLd = Array.isArray(doc.jsonLd) ? doc.jsonLd : [];
  jsonLd.forEach((entity, i) => {
    if (!isRecord(entity)) return;
    const label = typeof entity.name === "string" ? entity.name : String(entity["@type"] ?? "item");
    const offers = Array.isArray(entity.offers) ? entity.offers : isRecord(entity.offers) ? [entity.offers] : [];
    const base = Array.isArray(entity.offers) ? `/jsonLd/${i}/offers` : `/jsonLd/${i}/offers`;
    offers.forEach((offer, j) => {
      if (!isRecord(offer)) return;
      const at = Array.isArray(entity.offers) ? `${base}/${j}` : base;
      const offerLabel = typeof offer.name === "string" ? offer.name : label;
      const currency = typeof offer.priceCurrency === "string" ? offer.priceCurrency.toUpperCase() : undefined;
      if (offer.price !== undefined && Number.isFinite(Number(offer.price))) {
        add(
          draft,
          {
            name: `${offerLabel}_price`,
            type: currency && /^[A-Z]{3}$/.test(currency) ? "money" : "number",
            currency: currency && /^[A-Z]{3}$/.test(currency) ? currency : undefined,
            description: `Price of “${offerLabel}” from the page's structured data (JSON-LD offer)`,
            ptr: `${at}/price`,
          },
          PRICE_RULE,
        );
      }
      if (typeof offer.availability === "string") {
        add(
          draft,
          {
            name: `${offerLabel}_availability`,
            type: "string",
            description: `Availability of “${offerLabel}” (JSON-LD offer)`,
            ptr: `${at}/availability`,
          },
          ANY_RULE,
        );
      }
    });
  });
  // Prices detected in the visible text, in page order.
  const prices = Array.isArray(doc.prices) ? doc.prices.slice(0, 6) : [];
  prices.forEach((price, i) => {
    if (!isRecord(price)) return;
    const currency = typeof price.currency === "string" && /^[A-Z]{3}$/.test(price.currency) ? price.currency : "USD";
    add(
      draft,
      {
        name: i === 0 ? "price" : `price_${i + 1}`,
        type: "money",
        currency,
        description: `Price number ${i + 1} on the page (was “${String(price.text ?? "")}” in the sample)`,
        ptr: `/prices/${i}/amount`,
      },
      PRICE_RULE,
    );
  });
  if (typeof doc.title === "string" && doc.title) {
    add(draft, { name: "title", type: "string", description: "The page title", ptr: "/title" }, TEXT_RULE);
  }
  if (Array.isArray(doc.headings) && doc.headings.length > 0) {
    add(
      draft,
      { name: "headings", type: "string_list", description: "The page's section headings, in order", ptr: "/headings" },
      TEXT_RULE,
    );
  }
}

function fromJson(draft: TDraft, value: unknown, ptr: string, depth: number) {
  if (draft.fields.length >= MAX_FIELDS || depth > 2) return;
  if (Array.isArray(value)) {
    if (value.length > 0 && depth < 2) fromJson(draft, value[0], `${ptr}/0`, depth + 1);
    return;
  }
  if (!isRecord(value)) return;
  for (const [key, v] of Object.entries(value)) {
    const at = `${ptr}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`;
    const name = ptr ? `${ptr.split("/").filter(Boolean).join("_")}_${key}` : key;
    if (typeof v === "number") {
      const isInt = Number.isInteger(v) && !PRICE_NAME.test(key);
      add(
        draft,
        { name, type: isInt ? "integer" : "number", description: `“${key}” from the JSON response`, ptr: at },
        PRICE_NAME.test(key) || !isInt ? PRICE_RULE : ANY_RULE,
      );
    } else if (typeof v === "boolean") {
      add(draft, { name, type: "boolean", description: `“${key}” from the JSON response`, ptr: at }, ANY_RULE);
    } else if (typeof v === "string") {
      add(
        draft,
        { name, type: "string", description: `“${key}” from the JSON response`, ptr: at },
        v.length > 120 ? TEXT_RULE : ANY_RULE,
      );
    } else if (Array.isArray(v) && v.every((x) => typeof x === "string") && v.length > 0) {
      add(
        draft,
        { name, type: "string_list", description: `“${key}” list from the JSON response`, ptr: at },
        TEXT_RULE,
      );
    } else {
      fromJson(draft, v, at, depth + 1);
    }
  }
}

function fromPlace(draft: TDraft, place: Record<string, unknown>) {
  const p = (key: string) => `/${key}`;
  if (place.rating !== undefined)
    add(
      draft,
      { name: "rating", type: "number", unit: "stars", description: "Google rating (1–5)", ptr: p("rating") },
      {
        kind: "numeric",
        absolute: 0.2,
      },
    );
  if (place.reviewCount !== undefined)
    add(
      draft,
      {
        name: "review_count",
        type: "integer",
        unit: "reviews",
        description: "Number of reviews",
        ptr: p("reviewCount"),
      },
      { kind: "numeric", absolute: 10 },
    );
  if (place.openingHours !== undefined)
    add(
      draft,
      { name: "opening_hours", type: "string_list", description: "Opening hours per weekday", ptr: p("openingHours") },
      ANY_RULE,
    );
  for (const key of ["businessStatus", "priceLevel", "name", "address", "website", "phone"]) {
    if (place[key] !== undefined && place[key] !== null)
      add(
        draft,
        {
          name: key,
          type: "string",
          description: `The place's ${key.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`)}`,
          ptr: p(key),
        },
        ANY_RULE,
      );
  }
  if (place.description !== undefined && place.description !== null)
    add(
      draft,
      { name: "description", type: "string", description: "The place's description", ptr: p("description") },
      TEXT_RULE,
    );
}

/** snake_case, starting with a letter, ≤ 40 chars (room for a _N suffix), never the reserved name. */
export function toFieldName(raw: string): string {
  let name = raw
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, 40)
    .replace(/_+$/g, "");
  if (!/^[a-z]/.test(name)) name = `f_${name}`.slice(0, 40);
  if (name === "notable_signals" || name === "f_") name = "field";
  return name;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
