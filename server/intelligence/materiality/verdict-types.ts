import type { TMaterialityRule } from "@/contracts/definition/materiality-rule-schema";

export type TVerdictKind = "material" | "notable" | "noise";

/** A code decision per delta; "undecided" means the judge model (or its rules-mode fallback) decides. */
export type TCodeVerdict = {
  verdict: TVerdictKind | "undecided";
  decidedBy: "code";
  rule: TMaterialityRule;
  reason: string;
};

export type TOverallMateriality = "material" | "notable" | "noise" | "none";
