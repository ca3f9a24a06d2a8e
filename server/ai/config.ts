import { z } from "zod";
import { aiSettingsProblem, EnvError, type TEnv } from "../env";

/**
 * Pure model configuration: which backend, which model per role, and how the UI describes it.
 * No SDK objects here, so it is cheap to test and safe to show (the key never leaves `apiKey`).
 */

export const AI_ROLES = ["drafter", "filler", "judge", "enhancer"] as const;
export const ZAiRoleSchema = z.enum(AI_ROLES);
export type TAiRole = z.infer<typeof ZAiRoleSchema>;

export const ZAiModeSchema = z.enum(["openai", "openai-compatible", "rules"]);
export type TAiMode = z.infer<typeof ZAiModeSchema>;

/** Per-role env variable, so error messages and docs can name it. */
export const AI_ROLE_ENV = {
  drafter: "AI_MODEL_DRAFTER",
  filler: "AI_MODEL_FILLER",
  judge: "AI_MODEL_JUDGE",
  enhancer: "AI_MODEL_ENHANCER",
} as const satisfies Record<TAiRole, keyof TEnv>;

/**
 * OpenAI defaults: the drafter runs once per tracker setup and benefits from the stronger model;
 * fill, judge and enhancement run on every refresh / feed change, so they use the cheap one.
 */
export const OPENAI_DEFAULT_MODELS: Record<TAiRole, string> = {
  drafter: "gpt-5.4",
  filler: "gpt-5.4-mini",
  judge: "gpt-5.4-mini",
  enhancer: "gpt-5.4-mini",
};
export const OPENAI_DEFAULT_EMBEDDING_MODEL = "text-embedding-3-small";
export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";

const ZRoleModelsSchema = z.record(ZAiRoleSchema, z.string().min(1));

export const ZAiConfigSchema = z.discriminatedUnion("mode", [
  z.object({
    mode: z.literal("rules"),
    /** `forced`: AI_PROVIDER=rules; `unconfigured`: nothing set. */
    reason: z.enum(["forced", "unconfigured"]),
  }),
  z.object({
    mode: z.literal("openai"),
    apiKey: z.string().min(1),
    /** Set only when a proxy replaces api.openai.com (AI_PROVIDER=openai + OPENAI_BASE_URL). */
    baseUrl: z.string().optional(),
    models: ZRoleModelsSchema,
    embeddingModel: z.string().min(1),
  }),
  z.object({
    mode: z.literal("openai-compatible"),
    apiKey: z.string().optional(),
    baseUrl: z.string(),
    models: ZRoleModelsSchema,
    /** Local servers rarely serve an embedding model under a guessable name: null → full-text search only. */
    embeddingModel: z.string().nullable(),
  }),
]);
export type TAiConfig = z.infer<typeof ZAiConfigSchema>;

export const ZAiStatusSchema = z.object({
  mode: ZAiModeSchema,
  label: z.string(),
  models: z.record(ZAiRoleSchema, z.string().nullable()),
  embeddingModel: z.string().nullable(),
  baseUrl: z.string().optional(),
});
export type TAiStatus = z.infer<typeof ZAiStatusSchema>;

export type TAiEnv = Pick<
  TEnv,
  | "AI_PROVIDER"
  | "OPENAI_API_KEY"
  | "OPENAI_BASE_URL"
  | "AI_MODEL"
  | "AI_MODEL_DRAFTER"
  | "AI_MODEL_FILLER"
  | "AI_MODEL_JUDGE"
  | "AI_MODEL_ENHANCER"
  | "AI_EMBEDDING_MODEL"
>;

function roleModels(env: TAiEnv, fallback: (role: TAiRole) => string | undefined): Record<TAiRole, string | undefined> {
  const out = {} as Record<TAiRole, string | undefined>;
  for (const role of AI_ROLES) out[role] = env[AI_ROLE_ENV[role]] ?? env.AI_MODEL ?? fallback(role);
  return out;
}

/**
 * Decides the backend from the environment. Contradictory or incomplete settings are refused by the env
 * schema already (`aiSettingsProblem` in server/env.ts, so getEnv() and `npm start` agree); for an
 * environment built by hand the same check throws the same one-line EnvError here.
 *
 * auto: OPENAI_BASE_URL → OpenAI-compatible server (key optional); else OPENAI_API_KEY → OpenAI; else rules.
 */
export function resolveAiConfig(env: TAiEnv): TAiConfig {
  const problem = aiSettingsProblem(env);
  if (problem) throw new EnvError(`Invalid configuration: ${problem.variable} ${problem.message}`);
  const provider = env.AI_PROVIDER;
  if (provider === "rules") return { mode: "rules", reason: "forced" };

  const useCompatible = provider === "openai-compatible" || (provider === "auto" && env.OPENAI_BASE_URL !== undefined);
  if (useCompatible && env.OPENAI_BASE_URL !== undefined) {
    return {
      mode: "openai-compatible",
      apiKey: env.OPENAI_API_KEY,
      baseUrl: env.OPENAI_BASE_URL,
      models: roleModels(env, () => undefined) as Record<TAiRole, string>, // every role named: checked above
      embeddingModel: env.AI_EMBEDDING_MODEL ?? null,
    };
  }
  if (env.OPENAI_API_KEY === undefined) return { mode: "rules", reason: "unconfigured" };
  return {
    mode: "openai",
    apiKey: env.OPENAI_API_KEY,
    baseUrl: env.OPENAI_BASE_URL,
    models: roleModels(env, (role) => OPENAI_DEFAULT_MODELS[role]) as Record<TAiRole, string>,
    embeddingModel: env.AI_EMBEDDING_MODEL ?? OPENAI_DEFAULT_EMBEDDING_MODEL,
  };
}

/** A base URL fit for display: no user-info, query or fragment (they can carry credentials). */
export function displayBaseUrl(raw: string): string {
  if (!URL.canParse(raw)) return "(invalid URL)";
  const url = new URL(raw);
  url.username = "";
  url.password = "";
  url.search = "";
  url.hash = "";
  return url.toString().replace(/\/$/, "");
}

const LOCAL_HOST =
  /^(localhost|.*\.localhost|.*\.local|.*\.internal|127(\.\d+){3}|0\.0\.0\.0|\[::1?\]|10(\.\d+){3}|192\.168(\.\d+){2}|172\.(1[6-9]|2\d|3[01])(\.\d+){2}|host\.docker\.internal)$/i;

function isLocalHost(baseUrl: string): boolean {
  return URL.canParse(baseUrl) && LOCAL_HOST.test(new URL(baseUrl).hostname);
}

function distinct(values: string[]): string[] {
  return [...new Set(values)];
}

/** What the UI shows. Built only from non-secret fields; the key is never read here. */
export function describeAiConfig(config: TAiConfig): TAiStatus {
  if (config.mode === "rules") {
    return {
      mode: "rules",
      label: "AI off — built-in rules",
      models: { drafter: null, filler: null, judge: null, enhancer: null },
      embeddingModel: null,
    };
  }
  const models = { ...config.models };
  const modelList = distinct(AI_ROLES.map((role) => models[role])).join(", ");
  if (config.mode === "openai") {
    const baseUrl = config.baseUrl === undefined ? undefined : displayBaseUrl(config.baseUrl);
    return {
      mode: "openai",
      label: baseUrl === undefined ? `AI: OpenAI ${modelList}` : `AI: OpenAI ${modelList} via ${baseUrl}`,
      models,
      embeddingModel: config.embeddingModel,
      ...(baseUrl === undefined ? {} : { baseUrl }),
    };
  }
  const baseUrl = displayBaseUrl(config.baseUrl);
  const where = isLocalHost(config.baseUrl) ? "local server" : "server";
  return {
    mode: "openai-compatible",
    label: `AI: ${where} at ${baseUrl}`,
    models,
    embeddingModel: config.embeddingModel,
    baseUrl,
  };
}
