import {
  definitionFields,
  ZTrackerDefinitionSchema as ZContractTrackerDefinitionSchema,
} from "@/contracts/definition/tracker-definition-schema";
import { ZFieldSchema } from "./field-schema";

export { MAX_FIELDS, type TTrackerDefinition } from "@/contracts/definition/tracker-definition-schema";

/** The contract's definition (contracts/definition/tracker-definition-schema.ts) with the server's extractor checks. */
export const ZTrackerDefinitionSchema = ZContractTrackerDefinitionSchema.safeExtend({
  fields: definitionFields(ZFieldSchema),
}).describe(ZContractTrackerDefinitionSchema.description ?? "");
