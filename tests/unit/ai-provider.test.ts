import { generateText } from "ai";
import { MockEmbeddingModelV4, MockLanguageModelV4 } from "ai/test";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  AI_ROLES,
  createAiRuntime,
  getAiStatus,
  getEmbeddingModel,
  getModel,
  resetAiForTests,
  resolveAiConfig,
  setEmbeddingModelOverrideForTests,
  setModelOverrideForTests,
} from "@/server/ai";
import { parseEnv, resetEnvForTests } from "@/server/env";

const AI_VARS = [
  "AI_PROVIDER",
  "OPENAI_API_KEY",
  "OPENAI_BASE_URL",
  "AI_MODEL",
  "AI_MODEL_DRAFTER",
  "AI_MODEL_FILLER",
  "AI_MODEL_JUDGE",
  "AI_MODEL_ENHANCER",
  "AI_EMBEDDING_MODEL",
];

function useEnv(vars: Record<string, string>) {
  // Blank out whatever the developer's shell has, so "nothing set" really is nothing.
  for (const name of AI_VARS) vi.stubEnv(name, vars[name] ?? "");
  resetEnvForTests();
  resetAiForTests();
}

afterEach(() => {
  vi.unstubAllEnvs();
  resetEnvForTests();
  resetAiForTests();
});

function mockModel(text: string) {
  return new MockLanguageModelV4({
    doGenerate: {
      content: [{ type: "text", text }],
      finishReason: { unified: "stop", raw: "stop" },
      usage: {
        inputTokens: { total: 3, noCache: 3, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 2, text: 2, reasoning: 0 },
      },
      warnings: [],
    },
  });
}

describe("getModel / getAiStatus", () => {
  it("returns null for every role and a rules status when nothing is configured", () => {
    useEnv({});
    for (const role of AI_ROLES) expect(getModel(role)).toBeNull();
    expect(getEmbeddingModel()).toBeNull();
    expect(getAiStatus().mode).toBe("rules");
    expect(getAiStatus().label).toBe("AI off — built-in rules");
  });

  it("builds chat-completions models for a compatible server and Responses models for OpenAI", () => {
    useEnv({ OPENAI_BASE_URL: "http://127.0.0.1:9/v1", AI_MODEL: "local-m", AI_MODEL_JUDGE: "judge-m" });
    const filler = getModel("filler");
    expect(filler).toMatchObject({ modelId: "local-m", provider: "openai-compatible.chat" });
    expect(getModel("judge")).toMatchObject({ modelId: "judge-m" });
    expect(getModel("filler")).toBe(filler); // memoised
    expect(getEmbeddingModel()).toBeNull(); // no AI_EMBEDDING_MODEL for a local server

    useEnv({ OPENAI_API_KEY: "sk-unit" });
    expect(getModel("drafter")).toMatchObject({ provider: "openai.responses" });
    expect(getEmbeddingModel()).toMatchObject({ modelId: "text-embedding-3-small" });
    expect(getAiStatus().mode).toBe("openai");
  });

  it("lets tests swap in mock models, even in rules mode, and remove them again", async () => {
    useEnv({});
    const mock = mockModel("mocked answer");
    setModelOverrideForTests("judge", mock);
    const model = getModel("judge");
    expect(model).toBe(mock);
    if (model === null) throw new Error("expected the mock");
    const result = await generateText({ model, prompt: "hello" });
    expect(result.text).toBe("mocked answer");
    expect(mock.doGenerateCalls).toHaveLength(1);
    expect(getModel("filler")).toBeNull();

    setModelOverrideForTests("judge", undefined);
    expect(getModel("judge")).toBeNull();

    const embedding = new MockEmbeddingModelV4({ doEmbed: { embeddings: [[1, 0]], warnings: [] } });
    setEmbeddingModelOverrideForTests(embedding);
    expect(getEmbeddingModel()).toBe(embedding);
  });

  it("can simulate rules mode for one role while a model is configured", () => {
    useEnv({ OPENAI_API_KEY: "sk-unit" });
    setModelOverrideForTests("enhancer", null);
    expect(getModel("enhancer")).toBeNull();
    expect(getModel("filler")).not.toBeNull();
  });

  it("createAiRuntime works from an explicit config (no process.env)", () => {
    const runtime = createAiRuntime(
      resolveAiConfig(parseEnv({ OPENAI_BASE_URL: "http://127.0.0.1:9/v1", AI_MODEL: "x" })),
    );
    expect(runtime.status.label).toBe("AI: local server at http://127.0.0.1:9/v1");
    expect(runtime.getModel("drafter")).toMatchObject({ modelId: "x" });
  });
});
