import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, Output } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { modelServerControl } from "../fixtures/model-server/control";
import { loadRecordings } from "../fixtures/model-server/recordings";
import { startModelServer } from "../fixtures/model-server/server";

const SMOKE = fileURLToPath(new URL("../fixtures/model-server/recordings/smoke.json", import.meta.url));

describe("model server as a separate process (what Playwright uses)", () => {
  let child: ChildProcess;
  let origin: string;
  beforeAll(async () => {
    const cli = fileURLToPath(new URL("../fixtures/model-server/cli.ts", import.meta.url));
    child = spawn(process.execPath, ["--import", "tsx", cli, "--port", "0", "--recordings", SMOKE], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const [line] = (await once(createInterface({ input: child.stdout as NodeJS.ReadableStream }), "line")) as [string];
    origin = (JSON.parse(line) as { origin: string }).origin;
  });
  afterAll(async () => {
    if (child.exitCode === null) {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
  });

  it("answers from the file, takes new recordings over HTTP and reports the prompts it received", async () => {
    const control = modelServerControl(origin);
    expect((await fetch(`${origin}/__fixture/health`)).status).toBe(200);
    const openai = createOpenAI({ baseURL: control.url, apiKey: "k" });

    expect((await generateText({ model: openai.chat("m"), prompt: "ping" })).text).toBe("pong");

    await control.setRecordings([
      {
        name: "verdict",
        match: { schemaName: "verdict" },
        response: { json: { material: true, reason: "undercuts us" } },
      },
    ]);
    const judged = await generateText({
      model: openai.chat("m"),
      output: Output.object({ schema: z.object({ material: z.boolean(), reason: z.string() }), name: "verdict" }),
      instructions: "You judge changes.",
      prompt: "price 12.00 -> 9.90",
    });
    expect(judged.output).toEqual({ material: true, reason: "undercuts us" });
    // "ping" is no longer recorded: setRecordings replaced the file's recordings.
    await expect(generateText({ model: openai.chat("m"), prompt: "ping", maxRetries: 0 })).rejects.toThrow(
      /no recording matched/,
    );

    await control.addRecording({ name: "extra", match: { user: "extra" }, response: { text: "added" } });
    expect((await generateText({ model: openai.chat("m"), prompt: "extra" })).text).toBe("added");

    const requests = await control.requests();
    expect(requests.map((r) => r.matched)).toEqual(["ping", "verdict", null, "extra"]);
    // The count alone (benchmarks), matched or not.
    expect(await control.requestCount()).toBe(4);
    expect(requests[1]?.summary).toMatchObject({
      system: "You judge changes.",
      lastUser: "price 12.00 -> 9.90",
      structured: true,
    });

    await control.reset(); // back to the file's recordings, requests forgotten
    expect(await control.requests()).toEqual([]);
    expect((await generateText({ model: openai.chat("m"), prompt: "ping" })).text).toBe("pong");
    await expect(control.setRecordings([{ name: "", response: {} } as never])).rejects.toThrow(/HTTP 400/);
  });
});

describe("recordings", () => {
  it("rejects a malformed recordings file with a message naming the file", () => {
    const dir = mkdtempSync(join(tmpdir(), "recordings-"));
    const file = join(dir, "bad.json");
    writeFileSync(file, JSON.stringify([{ name: "x", match: { usr: "typo" }, response: { text: "t" } }]));
    expect(() => loadRecordings(file)).toThrow(/bad\.json/);
  });

  it("matches on model, system regex and endpoint; first match wins", async () => {
    const server = await startModelServer({
      recordings: [
        { name: "by-model", match: { model: "special", endpoint: "chat" }, response: { text: "special model" } },
        { name: "by-system", match: { systemRegex: "^You are a (judge|critic)" }, response: { text: "judge" } },
        { name: "catch-all", response: { text: "anything" } },
        { name: "never", response: { text: "shadowed" } },
      ],
    });
    try {
      const openai = createOpenAI({ baseURL: server.url, apiKey: "k" });
      const ask = (model: string, instructions?: string) =>
        generateText({ model: openai.chat(model), instructions, prompt: "hi" }).then((r) => r.text);
      expect(await ask("special", "You are a judge")).toBe("special model");
      expect(await ask("other", "You are a critic of things")).toBe("judge");
      expect(await ask("other", "Something else")).toBe("anything");
      expect(server.requests.map((r) => r.matched)).toEqual(["by-model", "by-system", "catch-all"]);
    } finally {
      await server.close();
    }
  });
});
