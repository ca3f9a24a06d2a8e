import { z } from "zod";
import { formatStructuredDocument, type TStructuredDocument } from "../web-scrape/format-structured-document";

/** The subset of a Places API (New) `Place` we request (see PLACE_FIELD_MASK). Lenient: Google adds fields. */
export const ZGooglePlaceSchema = z.looseObject({
  id: z.string().optional(),
  displayName: z.object({ text: z.string().optional(), languageCode: z.string().optional() }).optional(),
  formattedAddress: z.string().optional(),
  rating: z.number().optional(),
  userRatingCount: z.number().optional(),
  regularOpeningHours: z
    .object({ weekdayDescriptions: z.array(z.string()).optional() })
    .loose()
    .optional(),
  priceLevel: z.string().optional(),
  businessStatus: z.string().optional(),
  editorialSummary: z.object({ text: z.string().optional() }).loose().optional(),
  websiteUri: z.string().optional(),
  nationalPhoneNumber: z.string().optional(),
  internationalPhoneNumber: z.string().optional(),
  googleMapsUri: z.string().optional(),
  primaryType: z.string().optional(),
});
export type TGooglePlace = z.infer<typeof ZGooglePlaceSchema>;

/**
 * Only stable fields: `regularOpeningHours.openNow` and `currentOpeningHours` flip with the clock,
 * so they are not requested at all (requesting fewer fields also keeps the billing SKU down).
 */
export const PLACE_FIELD_MASK = [
  "id",
  "displayName",
  "formattedAddress",
  "rating",
  "userRatingCount",
  "regularOpeningHours.weekdayDescriptions",
  "priceLevel",
  "businessStatus",
  "editorialSummary",
  "websiteUri",
  "nationalPhoneNumber",
  "internationalPhoneNumber",
  "googleMapsUri",
  "primaryType",
].join(",");

export const ZPriceLevelSchema = z.enum(["free", "inexpensive", "moderate", "expensive", "very_expensive"]);
export const ZBusinessStatusSchema = z.enum(["operational", "closed_temporarily", "closed_permanently"]);

export const ZPlaceSchema = z.object({
  placeId: z.string(),
  name: z.string().nullable(),
  rating: z.number().nullable(),
  reviewCount: z.number().int().nullable(),
  /** Google's weekday descriptions ("Monday: 9:00 AM – 5:00 PM"), whitespace normalised. */
  openingHours: z.array(z.string()),
  priceLevel: ZPriceLevelSchema.nullable(),
  businessStatus: ZBusinessStatusSchema.nullable(),
  description: z.string().nullable(),
  address: z.string().nullable(),
  website: z.string().nullable(),
  phone: z.string().nullable(),
  primaryType: z.string().nullable(),
  googleMapsUri: z.string().nullable(),
});
export type TPlace = z.infer<typeof ZPlaceSchema>;

// Google mixes U+202F/U+2009 into times ("9:00 AM – 5:00 PM"); plain spaces compare and read better.
const clean = (s: string | undefined) => {
  const v = s?.replace(/[\s\u202f\u2009\u00a0]+/g, " ").trim();
  return v ? v : null;
};

function priceLevel(v: string | undefined): TPlace["priceLevel"] {
  const p = ZPriceLevelSchema.safeParse(v?.replace(/^PRICE_LEVEL_/, "").toLowerCase());
  return p.success ? p.data : null; // PRICE_LEVEL_UNSPECIFIED and unknowns → null
}

function businessStatus(v: string | undefined): TPlace["businessStatus"] {
  const p = ZBusinessStatusSchema.safeParse(v?.toLowerCase());
  return p.success ? p.data : null;
}

export function normalizePlace(raw: TGooglePlace, requestedId: string): TPlace {
  return {
    placeId: raw.id || requestedId,
    name: clean(raw.displayName?.text),
    rating: typeof raw.rating === "number" ? raw.rating : null,
    reviewCount: typeof raw.userRatingCount === "number" ? Math.round(raw.userRatingCount) : null,
    openingHours: (raw.regularOpeningHours?.weekdayDescriptions ?? []).map((d) => clean(d) ?? "").filter(Boolean),
    priceLevel: priceLevel(raw.priceLevel),
    businessStatus: businessStatus(raw.businessStatus),
    description: clean(raw.editorialSummary?.text),
    address: clean(raw.formattedAddress),
    website: clean(raw.websiteUri),
    phone: clean(raw.nationalPhoneNumber ?? raw.internationalPhoneNumber),
    primaryType: clean(raw.primaryType),
    googleMapsUri: clean(raw.googleMapsUri),
  };
}

/** The place as a structured document, so the hot loop hashes maps and web results the same way. */
export function placeToDocument(place: TPlace): TStructuredDocument {
  const url = `https://www.google.com/maps/place/?q=place_id:${encodeURIComponent(place.placeId)}`;
  const doc = formatStructuredDocument({ kind: "json", json: place }, url);
  doc.title = place.name;
  doc.description = place.description;
  return doc;
}
