import { compileErrors, validate } from "@readme/openapi-parser";
import { describe, expect, it } from "vitest";
import { handleRestRequest } from "@/server/api/rest/handle-rest-request";
import { buildOpenApiDocument } from "@/server/api/rest/openapi";
import { REST_ROUTES } from "@/server/api/rest/routes";

/** /api/v1/openapi.json: valid OpenAPI 3.1 (checked by a maintained validator) listing every served route. */
describe("OpenAPI document", () => {
  it("validates as OpenAPI 3.1", async () => {
    const doc = structuredClone(buildOpenApiDocument());
    expect(doc.openapi).toBe("3.1.0");
    const result = await validate(doc as never);
    expect(result.valid, result.valid ? "" : compileErrors(result)).toBe(true);
    // The validator is not a rubber stamp: a duplicated operation id is refused.
    const broken = JSON.parse(JSON.stringify(buildOpenApiDocument()));
    broken.paths["/trackers"].get.operationId = "createTracker";
    expect((await validate(broken as never)).valid).toBe(false);
  });

  it("lists every route the adapter serves, with its operation id, and nothing else", () => {
    const doc = buildOpenApiDocument();
    const documented = Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
      Object.entries(item ?? {}).map(
        ([method, op]) => `${method.toUpperCase()} ${path} ${(op as { operationId: string }).operationId}`,
      ),
    );
    const served = REST_ROUTES.map((r) => `${r.method} ${r.path} ${r.operationId}`);
    expect(documented.sort()).toEqual(served.sort());
    expect(served.length).toBeGreaterThanOrEqual(10);
  });

  it("documents parameters where they are read: path, query, the Idempotency-Key header, the JSON body", () => {
    const doc = buildOpenApiDocument();
    const refresh = doc.paths?.["/trackers/{trackerId}/refresh"]?.post;
    const params = (refresh?.parameters ?? []) as { in: string; name: string }[];
    expect(params.map((p) => `${p.in}:${p.name}`).sort()).toEqual(["header:idempotency-key", "path:trackerId"]);
    const timeline = doc.paths?.["/trackers/{trackerId}/timeline"]?.get;
    const names = ((timeline?.parameters ?? []) as { in: string; name: string }[]).map((p) => `${p.in}:${p.name}`);
    expect(names).toEqual(
      expect.arrayContaining(["path:trackerId", "query:from", "query:to", "query:cursor", "query:limit"]),
    );
    expect(doc.paths?.["/trackers"]?.post?.requestBody).toBeDefined();
  });

  it("documents the replay: the tracker in the path, the period, budget and plan flag in the body", () => {
    const doc = buildOpenApiDocument();
    const replay = doc.paths?.["/trackers/{trackerId}/replay"]?.post;
    expect(replay?.operationId).toBe("replayTracker");
    const params = (replay?.parameters ?? []) as { in: string; name: string }[];
    expect(params.map((p) => `${p.in}:${p.name}`)).toEqual(["path:trackerId"]);
    const body = JSON.stringify(replay?.requestBody);
    for (const key of ["from", "to", "definition", "modelBudget", "planOnly"]) expect(body).toContain(`"${key}"`);
    expect(body).toContain('"maximum":200');
    const ok = JSON.stringify(replay?.responses?.["200"]);
    for (const key of ["recorded", "replayed", "added", "removed", "changed", "summary", "cancelled"]) {
      expect(ok).toContain(`"${key}"`);
    }
  });

  it("is served without a token at /api/v1/openapi.json", async () => {
    const res = await handleRestRequest(new Request("http://app/api/v1/openapi.json"));
    expect(res.status).toBe(200);
    expect((await res.json()).info.title).toBe("Bellwether API");
  });
});
