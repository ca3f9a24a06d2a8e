import { execFile } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import openapiTS, { astToString } from "openapi-typescript";
import { afterAll, describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "@/server/api/rest/openapi";
import { listCapabilities } from "@/server/capabilities";

/**
 * What a client generated from /api/v1/openapi.json knows (docs/api.md): the create body's definition and capability
 * input are typed in full, so the TypeScript compiler refuses a materiality rule of a kind that does not exist.
 */

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const run = promisify(execFile);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bw-openapi-ts-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const CLIENT = `import type { components, paths } from "./api";

export type TCreateTrackerBody = paths["/trackers"]["post"]["requestBody"]["content"]["application/json"];
export type TMaterialityRule = components["schemas"]["MaterialityRule"];
`;

const GOOD = `import type { TCreateTrackerBody, TMaterialityRule } from "./client";

const rule: TMaterialityRule = { kind: "numeric", relative: 0.05, direction: "down" };
export const body: TCreateTrackerBody = {
  decision: "Switch plans when theirs gets cheaper?",
  capability: "web.scrape",
  capabilityInput: { url: "https://example.com/pricing" },
  definition: {
    fields: [
      { name: "price", type: "money", currency: "USD", description: "Pro plan monthly price",
        extractor: { kind: "css", selector: "#pro .price" } },
      { name: "plan_names", type: "string_list", description: "Names of the plans offered" },
    ],
    identityRule: { kind: "canonical_url" },
    materiality: { price: rule, plan_names: { kind: "ask_agent", guidance: "a renamed plan is noise" } },
    contextValues: [{ name: "our_price", label: "our price" }],
    contextRules: [{ field: "price", value: "our_price", when: "drops_below" }],
  },
  scheduleMinutes: 60,
};
`;

const BAD = `import type { TCreateTrackerBody } from "./client";

export const body: TCreateTrackerBody = {
  decision: "Switch plans when theirs gets cheaper?",
  capability: "web.scrape",
  capabilityInput: { url: "https://example.com/pricing" },
  definition: {
    fields: [{ name: "price", type: "money", currency: "USD", description: "Pro plan monthly price" }],
    identityRule: { kind: "canonical_url" },
    materiality: { price: { kind: "percent_move", relative: 0.05 } },
  },
};
`;

describe("a client generated from the OpenAPI document with openapi-typescript", () => {
  it("type-checks a correct create-tracker body and refuses a materiality rule of an unknown kind", async () => {
    const ast = await openapiTS(structuredClone(buildOpenApiDocument()) as never);
    fs.writeFileSync(path.join(dir, "api.ts"), astToString(ast));
    fs.writeFileSync(path.join(dir, "client.ts"), CLIENT);
    fs.writeFileSync(path.join(dir, "good.ts"), GOOD);
    fs.writeFileSync(path.join(dir, "bad.ts"), BAD);

    const compile = (file: string) =>
      run(
        process.execPath,
        [
          tsc,
          "--noEmit",
          "--strict",
          "--target",
          "es2022",
          "--module",
          "esnext",
          "--moduleResolution",
          "bundler",
          "--skipLibCheck",
          path.join(dir, file),
        ],
        { cwd: dir },
      ).then(
        () => ({ code: 0, output: "" }),
        (error: { code?: number; stdout?: string }) => ({ code: error.code ?? -1, output: error.stdout ?? "" }),
      );
    const [good, bad] = await Promise.all([compile("good.ts"), compile("bad.ts")]);

    expect(good, good.output).toEqual({ code: 0, output: "" });
    expect(bad.code, "the wrong rule kind compiled").not.toBe(0);
    // One error, on the rule's line, naming the wrong kind and the kinds there are.
    const line = BAD.split("\n").findIndex((l) => l.includes("percent_move")) + 1;
    expect(bad.output.trim().split("\n")).toHaveLength(1);
    expect(bad.output).toMatch(new RegExp(`^bad\\.ts\\(${line},\\d+\\): error TS2322: Type '"percent_move"'`));
    expect(bad.output).toContain('"numeric" | "any_change" | "ignore" | "ask_agent"');
  }, 60_000);

  it("documents the capability input from the registry: one alternative per capability, titled by its name", () => {
    const schemas = buildOpenApiDocument().components?.schemas ?? {};
    const input = schemas.CapabilityInput as { anyOf: { title: string }[] };
    expect(input.anyOf.map((s) => s.title)).toEqual(listCapabilities().map((c) => c.name));
    const rule = schemas.MaterialityRule as { oneOf: { properties: { kind: { const: string } } }[] };
    expect(rule.oneOf.map((s) => s.properties.kind.const)).toEqual(["numeric", "any_change", "ignore", "ask_agent"]);
  });
});
