import { z } from "zod";
import { formatIssues } from "../fill/format-issues";
import type { TValidation } from "../fill/structured-call";

export const MAX_REASON_CHARS = 300;

const VERDICTS = ["material", "notable", "noise"] as const;

export type TJudgeVerdict = {
  verdict: (typeof VERDICTS)[number];
  /** "agent" when the model judged; "code" for the rules-mode fallback (no model involved). */
  decidedBy: "agent" | "code";
  reason: string;
};

/** What the provider is told: one strict entry per undecided field (strict-mode friendly). */
export function buildJudgeJsonSchema(fieldNames: readonly string[]): Record<string, unknown> {
  const entry = z.strictObject({
    verdict: z.enum(VERDICTS).describe("material | notable | noise"),
    reason: z.string().describe("One sentence: what changed and why it matters or not"),
  });
  const schema = z.strictObject(Object.fromEntries(fieldNames.map((name) => [name, entry])));
  return z.toJSONSchema(schema, { target: "draft-7" }) as Record<string, unknown>;
}

/**
 * What we accept: every asked field present with a valid verdict and a non-empty reason. Unknown
 * keys (fields nobody asked about) are dropped, not fatal; a missing field is an issue (→ repair).
 */
export function validateJudgeOutput(
  fieldNames: readonly string[],
  value: unknown,
): TValidation<Record<string, TJudgeVerdict>> {
  const entry = z.object({ verdict: z.enum(VERDICTS), reason: z.string().trim().min(1, "a reason is required") });
  const schema = z.object(Object.fromEntries(fieldNames.map((name) => [name, entry])));
  const parsed = schema.safeParse(value);
  if (!parsed.success) return { ok: false, issues: formatIssues(parsed.error.issues) };
  const out: Record<string, TJudgeVerdict> = {};
  for (const name of fieldNames) {
    const answer = parsed.data[name] as z.infer<typeof entry>;
    out[name] = {
      verdict: answer.verdict,
      decidedBy: "agent",
      reason: answer.reason.replace(/\s+/g, " ").slice(0, MAX_REASON_CHARS),
    };
  }
  return { ok: true, value: out };
}
