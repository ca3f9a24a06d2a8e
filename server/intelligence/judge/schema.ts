import { z } from "zod";
import { formatIssues } from "../fill/format-issues";
import type { TValidation } from "../fill/structured-call";

export const MAX_REASON_CHARS = 300;
export const MAX_CITES_PER_FIELD = 3;

const VERDICTS = ["material", "notable", "noise"] as const;

export type TJudgeVerdict = {
  verdict: (typeof VERDICTS)[number];
  /** "agent" when the model judged; "code" for the rules-mode fallback (no model involved). */
  decidedBy: "agent" | "code";
  reason: string;
  /** The context-file excerpts the verdict relies on (chunk ids), with the words quoted from each. */
  cites?: { chunkId: string; quote: string }[];
};

/** The model's answer per field: excerpts are named by their labels in the prompt ("C1"). */
export type TJudgeAnswer = Omit<TJudgeVerdict, "cites"> & { cites?: { excerpt: string; quote: string }[] };

/**
 * What the provider is told: one strict entry per undecided field (strict-mode friendly). With context excerpts in
 * the prompt, each entry must also say which excerpts it relies on (`cites`, possibly empty).
 */
export function buildJudgeJsonSchema(
  fieldNames: readonly string[],
  excerptLabels: readonly string[] = [],
): Record<string, unknown> {
  const base = {
    verdict: z.enum(VERDICTS).describe("material | notable | noise"),
    reason: z.string().describe("One sentence: what changed and why it matters or not"),
  };
  const entry =
    excerptLabels.length > 0
      ? z.strictObject({
          ...base,
          cites: z
            .array(
              z.strictObject({
                excerpt: z
                  .enum(excerptLabels as [string, ...string[]])
                  .describe("The label of a context file excerpt this verdict relies on, e.g. C1"),
                quote: z.string().describe("The exact words of that excerpt that matter, copied verbatim (short)"),
              }),
            )
            .describe("The context file excerpts this verdict relies on; empty when none of them matters"),
        })
      : z.strictObject(base);
  const schema = z.strictObject(Object.fromEntries(fieldNames.map((name) => [name, entry])));
  return z.toJSONSchema(schema, { target: "draft-7" }) as Record<string, unknown>;
}

/**
 * What we accept: every asked field present with a valid verdict and a non-empty reason. Unknown
 * keys (fields nobody asked about) are dropped, not fatal; a missing field is an issue (→ repair).
 * Citations of excerpts that were not in the prompt are dropped.
 */
export function validateJudgeOutput(
  fieldNames: readonly string[],
  value: unknown,
  excerptLabels: readonly string[] = [],
): TValidation<Record<string, TJudgeAnswer>> {
  const cite = z.object({ excerpt: z.string(), quote: z.string().catch("") });
  const entry = z.object({
    verdict: z.enum(VERDICTS),
    reason: z.string().trim().min(1, "a reason is required"),
    cites: z.array(cite).optional().catch(undefined),
  });
  const schema = z.object(Object.fromEntries(fieldNames.map((name) => [name, entry])));
  const parsed = schema.safeParse(value);
  if (!parsed.success) return { ok: false, issues: formatIssues(parsed.error.issues) };
  const known = new Set(excerptLabels);
  const out: Record<string, TJudgeAnswer> = {};
  for (const name of fieldNames) {
    const answer = parsed.data[name] as z.infer<typeof entry>;
    const cites = (answer.cites ?? []).filter((c) => known.has(c.excerpt)).slice(0, MAX_CITES_PER_FIELD);
    out[name] = {
      verdict: answer.verdict,
      decidedBy: "agent",
      reason: answer.reason.replace(/\s+/g, " ").slice(0, MAX_REASON_CHARS),
      ...(cites.length > 0 ? { cites } : {}),
    };
  }
  return { ok: true, value: out };
}
