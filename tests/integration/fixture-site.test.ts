import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { fixtureSiteControl } from "../fixtures/site/control";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";

let site: TFixtureSite;
beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(() => site.close());
beforeEach(() => site.reset());

async function readAll(res: Response): Promise<number> {
  let bytes = 0;
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return bytes;
    bytes += value.length;
  }
}

describe("fixture site (in-process)", () => {
  it("serves pages that change between requests", async () => {
    site.setPage("/menu", { body: "<html><title>Menu</title><p>Soup 4.50 EUR</p></html>" });
    const first = await fetch(site.urlFor("/menu"));
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await first.text()).toContain("Soup 4.50 EUR");

    site.setPage("/menu", { body: "<html><title>Menu</title><p>Soup 5.20 EUR</p></html>" });
    expect(await (await fetch(site.urlFor("/menu"))).text()).toContain("Soup 5.20 EUR");
    // A tracking parameter still reaches the page; an exact path+query page would win over it.
    expect(await (await fetch(site.urlFor("/menu?utm_source=x"))).text()).toContain("5.20");
    expect(site.hits("/menu")).toBe(3);
    expect(site.requests.map((r) => r.path)).toEqual(["/menu", "/menu", "/menu?utm_source=x"]);
  });

  it("serves JSON endpoints, custom headers and content types", async () => {
    site.setJson("/api/place", { name: "Cafe", rating: 4.4 }, { headers: { etag: '"v1"' } });
    const res = await fetch(site.urlFor("/api/place"));
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(res.headers.get("etag")).toBe('"v1"');
    expect(await res.json()).toEqual({ name: "Cafe", rating: 4.4 });

    site.setPage("/file.pdf", { body: "%PDF-1.7", contentType: "application/pdf" });
    expect((await fetch(site.urlFor("/file.pdf"))).headers.get("content-type")).toBe("application/pdf");
  });

  it("answers any status, 404 for unknown paths and removed pages", async () => {
    site.setPage("/boom", { status: 500, body: "Internal error" });
    site.setPage("/gone", { status: 410 });
    expect((await fetch(site.urlFor("/boom"))).status).toBe(500);
    expect((await fetch(site.urlFor("/gone"))).status).toBe(410);
    const missing = await fetch(site.urlFor("/nope"));
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain("no page at /nope");

    site.setPage("/temp", { body: "here" });
    site.removePage("/temp");
    expect((await fetch(site.urlFor("/temp"))).status).toBe(404);
    expect(() => site.setPage("/__fixture/x", { body: "" })).toThrow(/reserved/);
  });

  it("redirects, including redirect loops", async () => {
    site.setPage("/old", { redirectTo: "/new" });
    site.setPage("/new", { body: "new home" });
    const followed = await fetch(site.urlFor("/old"));
    expect(followed.url).toBe(site.urlFor("/new"));
    expect(await followed.text()).toBe("new home");

    const manual = await fetch(site.urlFor("/old"), { redirect: "manual" });
    expect(manual.status).toBe(302);
    expect(manual.headers.get("location")).toBe("/new");

    site.setPage("/perm", { redirectTo: site.urlFor("/new"), status: 301 });
    expect((await fetch(site.urlFor("/perm"), { redirect: "manual" })).status).toBe(301);

    site.setPage("/a", { redirectTo: "/b" });
    site.setPage("/b", { redirectTo: "/a" });
    await expect(fetch(site.urlFor("/a"))).rejects.toThrow();
    expect(site.hits("/a") + site.hits("/b")).toBeGreaterThan(10);
  });

  it("delays responses, long enough to trip a client timeout", async () => {
    site.setPage("/slow", { body: "finally", delayMs: 150 });
    let started = Date.now();
    expect(await (await fetch(site.urlFor("/slow"))).text()).toBe("finally");
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);

    site.setPage("/hang", { body: "never seen", delayMs: 10_000 });
    started = Date.now();
    await expect(fetch(site.urlFor("/hang"), { signal: AbortSignal.timeout(200) })).rejects.toThrow(/timeout|abort/i);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("can stall the body after the headers", async () => {
    site.setPage("/stall", { body: "late body", bodyDelayMs: 5_000 });
    const controller = new AbortController();
    const res = await fetch(site.urlFor("/stall"), { signal: controller.signal });
    expect(res.status).toBe(200);
    setTimeout(() => controller.abort(), 150);
    await expect(res.text()).rejects.toThrow();
  });

  it("streams huge bodies with an exact length, with or without Content-Length", async () => {
    site.setPage("/huge", { body: "<html><body>", hugeBytes: 30_000_000 });
    const res = await fetch(site.urlFor("/huge"));
    expect(res.headers.get("content-length")).toBe("30000000");
    expect(await readAll(res)).toBe(30_000_000);

    site.setPage("/huge-chunked", { hugeBytes: 3_000_000, omitContentLength: true });
    const chunked = await fetch(site.urlFor("/huge-chunked"));
    expect(chunked.headers.get("content-length")).toBeNull();
    expect(chunked.headers.get("transfer-encoding")).toBe("chunked");
    expect(await readAll(chunked)).toBe(3_000_000);
  });

  it("stops streaming when the client gives up early", async () => {
    site.setPage("/endless", { hugeBytes: 5_000_000_000 });
    const res = await fetch(site.urlFor("/endless"));
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let bytes = 0;
    while (bytes < 1_000_000) bytes += (await reader.read()).value?.length ?? 0;
    await reader.cancel();
    // The site keeps serving afterwards (it did not try to buffer 5 GB).
    site.setPage("/ok", { body: "still alive" });
    expect(await (await fetch(site.urlFor("/ok"))).text()).toBe("still alive");
  });
});

describe("fixture site as a separate process (control API)", () => {
  let child: ChildProcess;
  let origin: string;
  beforeAll(async () => {
    const cli = fileURLToPath(new URL("../fixtures/site/cli.ts", import.meta.url));
    child = spawn(process.execPath, ["--import", "tsx", cli, "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
    const [line] = (await once(createInterface({ input: child.stdout as NodeJS.ReadableStream }), "line")) as [string];
    origin = (JSON.parse(line) as { url: string }).url;
  });
  afterAll(async () => {
    if (child.exitCode === null) {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
  });

  it("sets, changes and removes pages and reports requests", async () => {
    const control = fixtureSiteControl(origin);
    expect((await fetch(`${origin}/__fixture/health`)).status).toBe(200);
    await control.setPage("/p", { body: "<h1>v1</h1>" });
    expect(await (await fetch(control.urlFor("/p"))).text()).toBe("<h1>v1</h1>");
    await control.setPages({ "/p": { body: "<h1>v2</h1>" }, "/r": { redirectTo: "/p" } });
    expect(await (await fetch(control.urlFor("/r"))).text()).toBe("<h1>v2</h1>");
    await control.setJson("/j", { ok: true }, { status: 201 });
    const json = await fetch(control.urlFor("/j"));
    expect(json.status).toBe(201);
    expect(await json.json()).toEqual({ ok: true });
    await control.removePage("/p");
    expect((await fetch(control.urlFor("/p"))).status).toBe(404);

    const requests = await control.requests();
    expect(requests.map((r) => r.path)).toEqual(["/p", "/r", "/p", "/j", "/p"]);
    await control.reset();
    expect(await control.requests()).toEqual([]);
    await expect(control.setPage("/bad", { status: 99 } as never)).rejects.toThrow(/HTTP 400/);
  });
});
