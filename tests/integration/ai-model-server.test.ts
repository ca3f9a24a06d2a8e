import { fileURLToPath } from "node:url";
import { createOpenAI } from "@ai-sdk/openai";
import { APICallError, embed, embedMany, generateText, Output, stepCountIs, streamText, tool } from "ai";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { getAiStatus, getEmbeddingModel, getModel, resetAiForTests } from "@/server/ai";
import { resetEnvForTests } from "@/server/env";
import { startModelServer, type TModelServer } from "../fixtures/model-server/server";

/** The real @ai-sdk/openai client against the local fixture model server (no internet). */

const SMOKE = fileURLToPath(new URL("../fixtures/model-server/recordings/smoke.json", import.meta.url));
const ZWeatherSchema = z.object({ city: z.string(), temperatureC: z.number(), conditions: z.array(z.string()) });

let server: TModelServer;
let openai: ReturnType<typeof createOpenAI>;

beforeAll(async () => {
  server = await startModelServer({ recordings: SMOKE });
  openai = createOpenAI({ baseURL: server.url, apiKey: "test-key" });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

describe("chat completions (the compatible-server path)", () => {
  it("returns structured output and sends response_format json_schema", async () => {
    const result = await generateText({
      model: openai.chat("fixture-model"),
      output: Output.object({ schema: ZWeatherSchema, name: "weather" }),
      instructions: "You report the weather.",
      prompt: "What is the weather in Berlin?",
    });
    expect(result.output).toEqual({ city: "Berlin", temperatureC: 21.5, conditions: ["sunny", "windy"] });

    expect(server.requests).toHaveLength(1);
    const [req] = server.requests;
    expect(req?.path).toBe("/v1/chat/completions");
    expect(req?.matched).toBe("weather-structured");
    expect(req?.headers.authorization).toBe("Bearer test-key");
    const body = req?.body as { response_format: { type: string; json_schema: Record<string, unknown> } };
    expect(body.response_format.type).toBe("json_schema");
    expect(body.response_format.json_schema).toMatchObject({ name: "weather", strict: true });
    expect(body.response_format.json_schema.schema).toMatchObject({
      type: "object",
      properties: { city: { type: "string" } },
    });
    expect(req?.summary.system).toBe("You report the weather.");
    expect(req?.summary.lastUser).toBe("What is the weather in Berlin?");
    expect(result.usage.inputTokens).toBeGreaterThan(0);
  });

  it("streams text in several chunks, in order, with usage", async () => {
    const result = streamText({ model: openai.chat("fixture-model"), prompt: "Write a haiku about trackers" });
    const chunks: string[] = [];
    for await (const chunk of result.textStream) chunks.push(chunk);
    const expected = "Quiet bell at dawn / the price drops by two euros / the tracker wakes up";
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.join("")).toBe(expected);
    expect(chunks[0]).toBe(expected.slice(0, chunks[0]?.length));
    expect((await result.usage).outputTokens).toBeGreaterThan(0);
    expect(server.requests[0]?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it("streams structured output as growing partial objects", async () => {
    server.addRecording({
      name: "draft-stream",
      match: { schemaName: "draft", stream: true },
      response: { json: { title: "Menu watcher", fields: ["price", "hours", "notable_signals"] }, chunkSize: 5 },
    });
    const result = streamText({
      model: openai.chat("fixture-model"),
      output: Output.object({
        schema: z.object({ title: z.string(), fields: z.array(z.string()) }),
        name: "draft",
      }),
      prompt: "Draft a definition",
    });
    const partials: unknown[] = [];
    for await (const partial of result.partialOutputStream) partials.push(partial);
    expect(partials.length).toBeGreaterThan(2);
    expect(await result.output).toEqual({ title: "Menu watcher", fields: ["price", "hours", "notable_signals"] });
  });

  it("round-trips a tool call", async () => {
    const getPrice = vi.fn(async ({ sku }: { sku: string }) => ({ sku, price: 9.9, currency: "EUR" }));
    const result = await generateText({
      model: openai.chat("fixture-model"),
      tools: {
        getPrice: tool({
          description: "Price of a SKU",
          inputSchema: z.object({ sku: z.string() }),
          execute: getPrice,
        }),
      },
      stopWhen: stepCountIs(3),
      prompt: "How much is A-1?",
    });
    expect(getPrice).toHaveBeenCalledWith({ sku: "A-1" }, expect.anything());
    expect(result.text).toBe("Item A-1 costs 9.90 EUR.");
    expect(server.requests.map((r) => r.matched)).toEqual(["price-tool-call", "price-tool-answer"]);
    const second = server.requests[1]?.body as { messages: { role: string; content: unknown }[] };
    const toolMessage = second.messages.find((m) => m.role === "tool");
    expect(JSON.stringify(toolMessage?.content)).toContain("9.9");
  });

  it("fails loudly, without retrying, when no recording matches", async () => {
    const error = await generateText({ model: openai.chat("fixture-model"), prompt: "something unrecorded" }).catch(
      (e: unknown) => e,
    );
    expect(APICallError.isInstance(error)).toBe(true);
    expect((error as APICallError).statusCode).toBe(404);
    expect((error as APICallError).message).toMatch(/no recording matched.*lastUser="something unrecorded"/);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.matched).toBeNull();
  });

  it("serves an error recording a limited number of times (retries then succeed)", async () => {
    server.setRecordings([
      {
        name: "flaky",
        match: { user: "flaky" },
        times: 1,
        response: { status: 503, error: { message: "overloaded" } },
      },
      { name: "recovered", match: { user: "flaky" }, response: { text: "ok now" } },
    ]);
    const result = await generateText({ model: openai.chat("fixture-model"), prompt: "flaky", maxRetries: 2 });
    expect(result.text).toBe("ok now");
    expect(server.requests.map((r) => r.matched)).toEqual(["flaky", "recovered"]);

    server.setRecordings([{ name: "down", match: {}, response: { status: 500 } }]);
    const before = server.requests.length;
    await expect(generateText({ model: openai.chat("fixture-model"), prompt: "x", maxRetries: 1 })).rejects.toThrow();
    expect(server.requests.length - before).toBe(2); // the first try and one retry
  });

  it("honours per-recording latency (a client timeout fires first)", async () => {
    server.setRecordings([{ name: "slow", match: {}, response: { text: "late", latencyMs: 2000 } }]);
    const started = Date.now();
    await expect(
      generateText({
        model: openai.chat("fixture-model"),
        prompt: "x",
        maxRetries: 0,
        abortSignal: AbortSignal.timeout(200),
      }),
    ).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(1500);
  });
});

describe("Responses API (the OpenAI path)", () => {
  it("returns structured output via /v1/responses", async () => {
    const result = await generateText({
      model: openai("fixture-model"),
      output: Output.object({ schema: ZWeatherSchema, name: "weather" }),
      prompt: "Weather in Berlin, please",
    });
    expect(result.output).toEqual({ city: "Berlin", temperatureC: 21.5, conditions: ["sunny", "windy"] });
    const [req] = server.requests;
    expect(req?.path).toBe("/v1/responses");
    expect(req?.body).toMatchObject({ text: { format: { type: "json_schema", name: "weather", strict: true } } });
  });

  it("streams text via /v1/responses", async () => {
    const result = streamText({ model: openai("fixture-model"), prompt: "Write a haiku, responses edition" });
    const chunks: string[] = [];
    for await (const chunk of result.textStream) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.join("")).toBe("Quiet bell at dawn / the price drops by two euros / the tracker wakes up");
    expect(server.requests[0]?.path).toBe("/v1/responses");
  });

  it("round-trips a tool call via /v1/responses", async () => {
    const result = await generateText({
      model: openai("fixture-model"),
      tools: {
        getPrice: tool({ inputSchema: z.object({ sku: z.string() }), execute: async () => ({ price: 9.9 }) }),
      },
      stopWhen: stepCountIs(3),
      prompt: "How much is A-1?",
    });
    expect(result.text).toBe("Item A-1 costs 9.90 EUR.");
    expect(server.requests.map((r) => r.matched)).toEqual(["price-tool-call", "price-tool-answer"]);
  });
});

describe("embeddings", () => {
  it("returns deterministic hashed vectors where shared words mean closer vectors", async () => {
    const model = openai.embedding("fixture-embedding");
    const { embeddings } = await embedMany({
      model,
      values: ["our price is 10.00 EUR", "competitor price is 9.90 EUR", "opening hours on sunday"],
    });
    expect(embeddings).toHaveLength(3);
    expect(embeddings[0]).toHaveLength(256);
    const dot = (a: number[], b: number[]) => a.reduce((s, v, i) => s + v * (b[i] ?? 0), 0);
    const [price, competitor, hours] = embeddings as [number[], number[], number[]];
    expect(dot(price, price)).toBeCloseTo(1, 6);
    expect(dot(price, competitor)).toBeGreaterThan(dot(price, hours));

    const again = await embed({ model, value: "our price is 10.00 EUR" });
    expect(again.embedding).toEqual(price);
    expect(server.requests.every((r) => r.path === "/v1/embeddings")).toBe(true);
  });
});

describe("getModel() with the environment pointing at the fixture (compatible mode)", () => {
  beforeEach(() => {
    vi.stubEnv("AI_PROVIDER", "");
    vi.stubEnv("OPENAI_API_KEY", "");
    vi.stubEnv("OPENAI_BASE_URL", server.url);
    vi.stubEnv("AI_MODEL", "fixture-model");
    vi.stubEnv("AI_MODEL_FILLER", "fixture-filler");
    vi.stubEnv("AI_EMBEDDING_MODEL", "fixture-embedding");
    resetEnvForTests();
    resetAiForTests();
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    resetEnvForTests();
    resetAiForTests();
  });

  it("reports a local server and talks chat completions with the role's model", async () => {
    expect(getAiStatus()).toMatchObject({
      mode: "openai-compatible",
      label: `AI: local server at ${server.url}`,
      models: { drafter: "fixture-model", filler: "fixture-filler", judge: "fixture-model", enhancer: "fixture-model" },
    });
    const model = getModel("filler");
    if (model === null) throw new Error("expected a model in compatible mode");
    const result = await generateText({
      model,
      output: Output.object({ schema: ZWeatherSchema, name: "weather" }),
      prompt: "Berlin weather as JSON",
    });
    expect(result.output.city).toBe("Berlin");
    const [req] = server.requests;
    expect(req?.path).toBe("/v1/chat/completions");
    expect(req?.summary.model).toBe("fixture-filler");
    expect(req?.summary.schemaName).toBe("weather");
    // No key configured: a placeholder is sent rather than anything read from the process environment.
    expect(req?.headers.authorization).toBe("Bearer not-needed");
  });

  it("streams through the drafter model", async () => {
    const model = getModel("drafter");
    if (model === null) throw new Error("expected a model");
    const chunks: string[] = [];
    for await (const chunk of streamText({ model, prompt: "Write a haiku for the drafter" }).textStream)
      chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(1);
    expect(server.requests[0]?.summary.model).toBe("fixture-model");
  });

  it("embeds through the configured embedding model", async () => {
    const model = getEmbeddingModel();
    if (model === null) throw new Error("expected an embedding model");
    const { embedding } = await embed({ model, value: "hello" });
    expect(embedding).toHaveLength(256);
    expect(server.requests[0]?.body).toMatchObject({ model: "fixture-embedding" });
  });
});
