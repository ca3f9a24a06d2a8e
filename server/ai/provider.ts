import { createOpenAI } from "@ai-sdk/openai";
import type { EmbeddingModel, LanguageModel } from "ai";
import { getEnv, type TEnv } from "../env";
import {
  describeAiConfig,
  OPENAI_DEFAULT_BASE_URL,
  resolveAiConfig,
  type TAiConfig,
  type TAiRole,
  type TAiStatus,
} from "./config";

/**
 * Turns a resolved config into AI SDK model objects (the one place that knows about @ai-sdk/openai),
 * plus module-level accessors for app code and a seam for tests to swap in mock models.
 */

/** Model objects only (the SDK also accepts gateway id strings, which this app never uses). */
export type TLanguageModel = Exclude<LanguageModel, string>;
export type TEmbeddingModel = Exclude<EmbeddingModel, string>;

export type TAiRuntime = {
  config: TAiConfig;
  status: TAiStatus;
  /** null in rules mode: callers take their deterministic fallback. */
  getModel(role: TAiRole): TLanguageModel | null;
  /** null in rules mode and for compatible servers without AI_EMBEDDING_MODEL. */
  getEmbeddingModel(): TEmbeddingModel | null;
};

export type TAiRuntimeOptions = {
  /** Custom fetch (e.g. to observe requests in a test); defaults to the global fetch. */
  fetch?: typeof globalThis.fetch;
};

/**
 * Local servers often need no key, but the SDK would then fall back to reading process.env (and
 * throw when it is unset). A placeholder keeps env.ts the only reader and servers ignore it.
 */
const NO_KEY_PLACEHOLDER = "not-needed";

export function createAiRuntime(config: TAiConfig, options: TAiRuntimeOptions = {}): TAiRuntime {
  const status = describeAiConfig(config);
  if (config.mode === "rules") {
    return { config, status, getModel: () => null, getEmbeddingModel: () => null };
  }

  // baseURL and apiKey are always passed explicitly so the SDK never consults process.env itself.
  const provider = createOpenAI({
    baseURL: config.baseUrl ?? OPENAI_DEFAULT_BASE_URL,
    apiKey: config.apiKey ?? NO_KEY_PLACEHOLDER,
    name: config.mode === "openai" ? "openai" : "openai-compatible",
    fetch: options.fetch,
  });
  const models = new Map<TAiRole, TLanguageModel>();
  let embedding: TEmbeddingModel | null | undefined;

  return {
    config,
    status,
    getModel(role) {
      let model = models.get(role);
      if (model === undefined) {
        const id = config.models[role];
        // Compatible servers (Ollama, vLLM, LM Studio) implement chat completions, not the Responses API.
        model = config.mode === "openai" ? provider(id) : provider.chat(id);
        models.set(role, model);
      }
      return model;
    },
    getEmbeddingModel() {
      if (embedding === undefined) {
        embedding = config.embeddingModel === null ? null : provider.embedding(config.embeddingModel);
      }
      return embedding;
    },
  };
}

// ---- module-level accessors -------------------------------------------------------------------

let cached: { env: TEnv; runtime: TAiRuntime } | undefined;
const modelOverrides = new Map<TAiRole, TLanguageModel | null>();
let embeddingOverride: { model: TEmbeddingModel | null } | undefined;

/** The runtime for the current environment; rebuilt when getEnv() returns a new object (tests reset it). */
export function getAiRuntime(): TAiRuntime {
  const env = getEnv();
  if (cached?.env !== env) cached = { env, runtime: createAiRuntime(resolveAiConfig(env)) };
  return cached.runtime;
}

export function getModel(role: TAiRole): TLanguageModel | null {
  if (modelOverrides.has(role)) return modelOverrides.get(role) ?? null;
  return getAiRuntime().getModel(role);
}

export function getEmbeddingModel(): TEmbeddingModel | null {
  if (embeddingOverride !== undefined) return embeddingOverride.model;
  return getAiRuntime().getEmbeddingModel();
}

/** Safe to send to the browser: mode, label, model names, display base URL; never the key. */
export function getAiStatus(): TAiStatus {
  return getAiRuntime().status;
}

/**
 * Test seam: make getModel(role) return this model (e.g. `new MockLanguageModelV4(...)` from `ai/test`),
 * or `null` to simulate rules mode for that role. `undefined` removes the override.
 */
export function setModelOverrideForTests(role: TAiRole, model: TLanguageModel | null | undefined): void {
  if (model === undefined) modelOverrides.delete(role);
  else modelOverrides.set(role, model);
}

/** Test seam for getEmbeddingModel(); `undefined` removes the override. */
export function setEmbeddingModelOverrideForTests(model: TEmbeddingModel | null | undefined): void {
  embeddingOverride = model === undefined ? undefined : { model };
}

/** Drops all overrides and the cached runtime. */
export function resetAiForTests(): void {
  modelOverrides.clear();
  embeddingOverride = undefined;
  cached = undefined;
}
