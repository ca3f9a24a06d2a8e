import { describe, expect, it } from "vitest";
import {
  AI_ROLES,
  describeAiConfig,
  OPENAI_DEFAULT_EMBEDDING_MODEL,
  OPENAI_DEFAULT_MODELS,
  resolveAiConfig,
} from "@/server/ai";
import { EnvError, parseEnv } from "@/server/env";

// Goes through parseEnv so the schema's defaults and empty-string handling are part of what is tested.
const env = (vars: Record<string, string>) => parseEnv(vars);
const SECRET = "sk-test-SECRET-0123456789abcdef";

describe("resolveAiConfig", () => {
  it("is rules mode when nothing is configured", () => {
    const config = resolveAiConfig(env({}));
    expect(config).toEqual({ mode: "rules", reason: "unconfigured" });
    const status = describeAiConfig(config);
    expect(status.mode).toBe("rules");
    expect(status.label).toBe("AI off — built-in rules");
    expect(status.models).toEqual({ drafter: null, filler: null, judge: null, enhancer: null });
  });

  it("treats empty variables as unset", () => {
    expect(resolveAiConfig(env({ OPENAI_API_KEY: "", OPENAI_BASE_URL: "  ", AI_MODEL: "" })).mode).toBe("rules");
  });

  it("uses OpenAI with defaults when only OPENAI_API_KEY is set", () => {
    const config = resolveAiConfig(env({ OPENAI_API_KEY: SECRET }));
    expect(config.mode).toBe("openai");
    if (config.mode !== "openai") return;
    expect(config.models).toEqual(OPENAI_DEFAULT_MODELS);
    expect(config.embeddingModel).toBe(OPENAI_DEFAULT_EMBEDDING_MODEL);
    expect(config.baseUrl).toBeUndefined();
    expect(describeAiConfig(config).label).toMatch(/^AI: OpenAI gpt-/);
  });

  it("applies AI_MODEL to every role and AI_MODEL_<ROLE> on top", () => {
    const config = resolveAiConfig(
      env({ OPENAI_API_KEY: SECRET, AI_MODEL: "gpt-base", AI_MODEL_JUDGE: "gpt-judge", AI_EMBEDDING_MODEL: "emb-x" }),
    );
    if (config.mode !== "openai") throw new Error(`expected openai, got ${config.mode}`);
    expect(config.models).toEqual({
      drafter: "gpt-base",
      filler: "gpt-base",
      judge: "gpt-judge",
      enhancer: "gpt-base",
    });
    expect(config.embeddingModel).toBe("emb-x");
  });

  it.each(AI_ROLES)("lets AI_MODEL_%s override just that role", (role) => {
    const name = `AI_MODEL_${role.toUpperCase()}`;
    const config = resolveAiConfig(env({ OPENAI_API_KEY: SECRET, [name]: "special" }));
    if (config.mode !== "openai") throw new Error("expected openai");
    for (const r of AI_ROLES) expect(config.models[r]).toBe(r === role ? "special" : OPENAI_DEFAULT_MODELS[r]);
  });

  it("uses an OpenAI-compatible server (chat completions) when OPENAI_BASE_URL is set, key optional", () => {
    const config = resolveAiConfig(env({ OPENAI_BASE_URL: "http://127.0.0.1:11434/v1", AI_MODEL: "llama3.1" }));
    expect(config).toEqual({
      mode: "openai-compatible",
      apiKey: undefined,
      baseUrl: "http://127.0.0.1:11434/v1",
      models: { drafter: "llama3.1", filler: "llama3.1", judge: "llama3.1", enhancer: "llama3.1" },
      embeddingModel: null,
    });
    const status = describeAiConfig(config);
    expect(status.label).toBe("AI: local server at http://127.0.0.1:11434/v1");
    expect(status.baseUrl).toBe("http://127.0.0.1:11434/v1");
  });

  it("prefers the compatible server over OpenAI when both variables are set, and passes the key on", () => {
    const config = resolveAiConfig(
      env({ OPENAI_API_KEY: SECRET, OPENAI_BASE_URL: "https://llm.example.com/v1", AI_MODEL: "m" }),
    );
    expect(config.mode).toBe("openai-compatible");
    if (config.mode !== "openai-compatible") return;
    expect(config.apiKey).toBe(SECRET);
    expect(describeAiConfig(config).label).toBe("AI: server at https://llm.example.com/v1");
  });

  it("fails with a one-line error naming AI_MODEL when a compatible server has no model name", () => {
    const run = () => resolveAiConfig(env({ OPENAI_BASE_URL: "http://localhost:1234/v1" }));
    expect(run).toThrow(EnvError);
    expect(run).toThrow(/AI_MODEL/);
    try {
      run();
    } catch (error) {
      expect((error as Error).message).not.toContain("\n");
    }
  });

  it("accepts a compatible server without AI_MODEL when every role is named", () => {
    const config = resolveAiConfig(
      env({
        OPENAI_BASE_URL: "http://localhost:1234/v1",
        AI_MODEL_DRAFTER: "a",
        AI_MODEL_FILLER: "b",
        AI_MODEL_JUDGE: "c",
        AI_MODEL_ENHANCER: "d",
      }),
    );
    expect(config.mode === "openai-compatible" && config.models).toEqual({
      drafter: "a",
      filler: "b",
      judge: "c",
      enhancer: "d",
    });
  });

  it("honours AI_PROVIDER", () => {
    expect(resolveAiConfig(env({ AI_PROVIDER: "rules", OPENAI_API_KEY: SECRET }))).toEqual({
      mode: "rules",
      reason: "forced",
    });
    expect(() => resolveAiConfig(env({ AI_PROVIDER: "openai" }))).toThrow(/OPENAI_API_KEY/);
    expect(() => resolveAiConfig(env({ AI_PROVIDER: "openai-compatible", AI_MODEL: "m" }))).toThrow(/OPENAI_BASE_URL/);
    // Explicit openai + base URL: a proxy that speaks the Responses API.
    const proxied = resolveAiConfig(
      env({ AI_PROVIDER: "openai", OPENAI_API_KEY: SECRET, OPENAI_BASE_URL: "https://proxy.example.com/v1" }),
    );
    expect(proxied.mode).toBe("openai");
    expect(describeAiConfig(proxied).label).toMatch(/^AI: OpenAI gpt-.* via https:\/\/proxy\.example\.com\/v1$/);
  });

  it("rejects an OPENAI_BASE_URL that is not a URL, naming the variable", () => {
    expect(() => env({ OPENAI_BASE_URL: "localhost:11434" })).toThrow(/OPENAI_BASE_URL/);
  });
});

describe("describeAiConfig never reveals secrets", () => {
  const cases: Record<string, string>[] = [
    { OPENAI_API_KEY: SECRET },
    { OPENAI_API_KEY: SECRET, AI_MODEL: "gpt-x" },
    { OPENAI_API_KEY: SECRET, OPENAI_BASE_URL: "http://127.0.0.1:8000/v1", AI_MODEL: "m" },
    { AI_PROVIDER: "openai", OPENAI_API_KEY: SECRET, OPENAI_BASE_URL: "https://proxy.example.com/v1" },
    // Credentials smuggled into the URL itself must not be shown either.
    { OPENAI_BASE_URL: `http://user:${SECRET}@127.0.0.1:8000/v1?api-key=${SECRET}`, AI_MODEL: "m" },
  ];
  it.each(cases)("status for %o", (vars) => {
    const status = describeAiConfig(resolveAiConfig(env(vars)));
    expect(JSON.stringify(status)).not.toContain(SECRET);
    expect(status.label).not.toContain("sk-");
  });

  it("strips user-info and query from the displayed base URL", () => {
    const status = describeAiConfig(
      resolveAiConfig(
        env({ OPENAI_BASE_URL: `http://user:${SECRET}@127.0.0.1:8000/v1?api-key=${SECRET}`, AI_MODEL: "m" }),
      ),
    );
    expect(status.label).toBe("AI: local server at http://127.0.0.1:8000/v1");
  });
});
