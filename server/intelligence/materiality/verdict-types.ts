import type { TContextRule } from "@/contracts/definition/context-rule-schema";
import type { TMaterialityRule } from "@/contracts/definition/materiality-rule-schema";

export type TVerdictKind = "material" | "notable" | "noise";

/** A code decision per delta; "undecided" means the judge model (or its rules-mode fallback) decides. */
export type TCodeVerdict = {
  verdict: TVerdictKind | "undecided";
  decidedBy: "code";
  /** The field's rule, or a context rule that fired (compared with a value from a context file). */
  rule: TMaterialityRule | { kind: "context"; context: TContextRule };
  reason: string;
};

export type TOverallMateriality = "material" | "notable" | "noise" | "none";
