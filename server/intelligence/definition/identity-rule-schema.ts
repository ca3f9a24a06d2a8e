export { type TIdentityRule, ZIdentityRuleSchema } from "@/contracts/definition/identity-rule-schema";
