import { z } from "zod";

/**
 * Where a listing page (a category grid, search results, a store locator, a job board) keeps its items and how each
 * is told apart from the others: decided once at setup from one sample, then read on every refresh with this plan
 * only ("the agent judges, code computes", docs/design.md). An item is identified by what it is (its URL, SKU, an id
 * the site chose, else its name), never by its place in the list. Small and serialisable: it is stored with the
 * tracker. Client-safe.
 */

export const LISTING_SHAPES = ["jsonld-itemlist", "jsonld-products", "microdata", "dom-cards", "table"] as const;
export const LISTING_KEY_KINDS = ["url", "sku", "id-attribute", "name"] as const;
export const LISTING_FIELD_TYPES = ["money", "text", "number", "url", "availability"] as const;

/** The most pages a refresh follows, whatever a plan says. */
export const MAX_LISTING_PAGES = 50;

const ZSelectorSchema = z.string().min(1).max(300);
const ZAttributeSchema = z.string().min(1).max(100);
/** A JSON pointer into one item's JSON-LD object; keys match in any case, an array stands for its first element. */
const ZItemJsonPathSchema = z
  .string()
  .max(200)
  .regex(/^(\/[^/]+)+$/, 'a path into the item\'s JSON-LD object, e.g. "/offers/price"');

export const ZListingKeySchema = z
  .object({
    kind: z
      .enum(LISTING_KEY_KINDS)
      .describe(
        "url: the item's link, absolute without tracking parameters; sku: its stock-keeping unit; id-attribute: an id the site chose (not a generated hash); name: its name, when nothing better holds",
      ),
    selector: ZSelectorSchema.nullable()
      .optional()
      .describe("CSS selector inside the item that holds the key; null or absent: the item element itself"),
    attribute: ZAttributeSchema.nullable().optional().describe("Read this attribute instead of the element's text"),
    jsonPath: ZItemJsonPathSchema.nullable().optional().describe("JSON-LD shapes: where the key sits in the item"),
  })
  .describe("What identifies an item across refreshes and pages; never its position");

export const ZListingFieldSchema = z
  .object({
    name: z
      .string()
      .min(1)
      .max(40)
      .regex(/^[a-z][a-z0-9_]*$/, "a field name is snake_case")
      .describe("snake_case name the item's value is stored under, e.g. price"),
    type: z
      .enum(LISTING_FIELD_TYPES)
      .describe(
        'money: "<amount> <ISO 4217>" (e.g. "49.9 USD"); number: a plain number; url: absolute, cleaned; availability: a schema.org value (InStock…) or the stock text; text: whitespace collapsed',
      ),
    selector: ZSelectorSchema.nullable()
      .optional()
      .describe("DOM shapes: CSS selector inside the item (its first match is read); null: the item element itself"),
    attribute: ZAttributeSchema.nullable().optional().describe("Read this attribute instead of the element's text"),
    jsonPath: ZItemJsonPathSchema.nullable().optional().describe('JSON-LD shapes: where the value sits, e.g. "/name"'),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/)
      .nullable()
      .optional()
      .describe("money only: the currency of the sample, for amounts shown without one and to resolve $, kr, ¥"),
  })
  .describe("One value read from every item");

export const ZListingPlanSchema = z
  .object({
    shape: z
      .enum(LISTING_SHAPES)
      .describe(
        "Where the items are: a JSON-LD ItemList, several JSON-LD Product objects, repeated microdata items, repeated DOM cards, or the rows of a table",
      ),
    itemSelector: ZSelectorSchema.nullable().describe(
      "microdata, dom-cards, table: CSS selector matching each item's element (a row for tables); null for JSON-LD",
    ),
    key: ZListingKeySchema,
    fields: z.array(ZListingFieldSchema).min(1).max(12).describe("The values read from every item"),
    nextPage: z
      .object({
        selector: ZSelectorSchema.describe("CSS selector of the next page's link (its href is read)"),
      })
      .nullable()
      .describe("How to find the next page of the listing; null: a single page"),
    maxPages: z.number().int().min(1).max(MAX_LISTING_PAGES).describe("The most pages a refresh reads"),
  })
  .describe("How a listing page's items are read on every refresh, decided once at setup");

export const ZListingItemSchema = z
  .object({
    key: z.string().min(1).describe("The item's identity under the plan's key"),
    values: z.record(z.string(), z.string().nullable()).describe("The item's values by the plan's field names"),
  })
  .describe("One item of a listing as read with a plan");

export type TListingShape = (typeof LISTING_SHAPES)[number];
export type TListingKey = z.infer<typeof ZListingKeySchema>;
export type TListingField = z.infer<typeof ZListingFieldSchema>;
export type TListingPlan = z.infer<typeof ZListingPlanSchema>;
export type TListingItem = z.infer<typeof ZListingItemSchema>;
