import {
  extractorUnion,
  ZCssExtractorSchema as ZContractCssExtractorSchema,
  ZFieldSchema as ZContractFieldSchema,
  ZRegexExtractorSchema as ZContractRegexExtractorSchema,
} from "@/contracts/definition/field-schema";
import { isValidCssSelector } from "../../capabilities/web-scrape/css-query";
import { compileRegex } from "./regex-safety";

/**
 * The contract's field shape (contracts/definition/field-schema.ts) with the checks only the server can run: a CSS
 * selector must parse, a regex must compile for the linear-time engine (docs/design.md §5). Same types as the contract.
 */

export {
  FIELD_TYPES,
  isNumericFieldType,
  NOTABLE_SIGNALS,
  NUMERIC_FIELD_TYPES,
  type TExtractor,
  type TField,
  type TFieldType,
  ZFieldNameSchema,
  ZFieldTypeSchema,
  ZJsonPointerExtractorSchema,
} from "@/contracts/definition/field-schema";

export const ZCssExtractorSchema = ZContractCssExtractorSchema.extend({
  selector: ZContractCssExtractorSchema.shape.selector.refine(isValidCssSelector, {
    message: "the CSS selector does not parse",
  }),
}).describe(ZContractCssExtractorSchema.description ?? "");

export const ZRegexExtractorSchema = ZContractRegexExtractorSchema.superRefine((extractor, ctx) => {
  const compiled = compileRegex(extractor.pattern, extractor.flags ?? "");
  if (!compiled.ok) {
    ctx.addIssue({ code: "custom", message: compiled.problem, path: ["pattern"] });
    return;
  }
  const { group } = extractor;
  const groups = compiled.regex.groupCount();
  if (typeof group === "number" && group > groups) {
    ctx.addIssue({
      code: "custom",
      path: ["group"],
      message: `group ${group} does not exist: the pattern has ${groups} capture group${groups === 1 ? "" : "s"}`,
    });
  }
  if (typeof group === "string" && !Object.hasOwn(compiled.regex.namedGroups(), group)) {
    ctx.addIssue({ code: "custom", path: ["group"], message: `the pattern has no group named "${group}"` });
  }
});

export const ZExtractorSchema = extractorUnion(ZCssExtractorSchema, ZRegexExtractorSchema);

export const ZFieldSchema = ZContractFieldSchema.safeExtend({ extractor: ZExtractorSchema.optional() }).describe(
  ZContractFieldSchema.description ?? "",
);
