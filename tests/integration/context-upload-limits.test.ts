import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { treeRssMb } from "../bench/app-process";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import {
  callApi,
  createOwner,
  freePort,
  priceTrackerRequest,
  startApp,
  stopStartedProcesses,
  type TApp,
} from "../helpers/app-process";
import { makeDocx, makePdf } from "../helpers/context-fixtures";
import { repeatingDocx } from "../helpers/zip-writer";

/**
 * Hostile context files against the server as `npm start` runs it (docs/context-files.md): each is refused (or read)
 * within its limits while `/api/health`, polled throughout, keeps answering in under a second, and the whole process
 * tree's resident memory comes back to within 150 MB of where it was. Before the extraction worker, the first of
 * these killed the server (3 million paragraphs: out of heap) and the second hung it for minutes.
 */

let site: TFixtureSite;
let dataDir: string;
let app: TApp;
let cookie: string;
let trackerId: string;
let baselineMb: number;

/** ~1 KB of body text that Deflate squeezes ~1000:1, as zip bombs do. */
const SQUEEZABLE = `<w:p><w:r><w:t>${"a".repeat(1000)}</w:t></w:r></w:p>`;

const upload = async (name: string, bytes: Uint8Array) => {
  const form = new FormData();
  form.set("file", new File([bytes as Uint8Array<ArrayBuffer>], name));
  const res = await fetch(`${app.url}/api/trackers/${trackerId}/context-files`, {
    method: "POST",
    headers: { origin: app.url, cookie },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as { error?: { code: string; message: string } } };
};

/** Runs `work` while polling /api/health every 100 ms; returns its result and the slowest poll (failed polls count as ∞). */
async function withHealthPolls<T>(work: () => Promise<T>): Promise<{ result: T; polls: number; slowestMs: number }> {
  let running = true;
  let polls = 0;
  let slowestMs = 0;
  const poller = (async () => {
    while (running) {
      const started = performance.now();
      const res = await fetch(`${app.url}/api/health`, { signal: AbortSignal.timeout(5_000) }).catch(() => null);
      const ms = res?.status === 200 ? performance.now() - started : Number.POSITIVE_INFINITY;
      await res?.arrayBuffer();
      polls++;
      slowestMs = Math.max(slowestMs, ms);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  try {
    const result = await work();
    await new Promise((resolve) => setTimeout(resolve, 300)); // a poll or two after the answer, too
    return { result, polls, slowestMs };
  } finally {
    running = false;
    await poller;
  }
}

/** The tree's resident MB once it settles back (up to 10 s): the lowest reading seen. */
async function settledRssMb(): Promise<number> {
  let lowest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 20; i++) {
    lowest = Math.min(lowest, treeRssMb(app.proc.pid as number).mb);
    if (lowest <= baselineMb + 100) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return lowest;
}

beforeAll(async () => {
  site = await startFixtureSite();
  site.setPage("/pro", { body: `<html><body><h1>Pro plan</h1><span id="price">$10.00</span></body></html>` });
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bw-upload-limits-"));
  app = startApp({
    DATA_DIR: path.join(dataDir, "data"),
    PORT: String(await freePort()),
    FETCH_ALLOW_HOSTS: `127.0.0.1:${site.port}`,
    SCHEDULER: "off",
  });
  await app.waitFor(/\[bellwether\] ready in/, 900_000); // includes the build, shared with the other app tests
  const owner = await createOwner(app);
  cookie = owner.cookie;
  const created = await callApi(
    app,
    owner.token,
    "POST",
    "/trackers",
    priceTrackerRequest(`http://127.0.0.1:${site.port}/pro`, "Is Acme undercutting us?"),
  );
  expect(created.status).toBe(201);
  trackerId = (created.body.tracker as { id: string }).id;
  // Warm up: one real upload of each parsed kind, so the baseline holds what serving uploads costs anyway.
  expect((await upload("warm.docx", await makeDocx(["Warm-up"]))).status).toBe(201);
  expect((await upload("warm.pdf", await makePdf([["Warm-up"]]))).status).toBe(201);
  baselineMb = await settledRssMb();
}, 960_000);

afterAll(async () => {
  if (app && app.proc.exitCode === null) {
    app.proc.kill("SIGTERM");
    await app.exited;
  }
  await stopStartedProcesses();
  await site?.close();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

type TCase = {
  what: string;
  name: string;
  make: () => Promise<Uint8Array>;
  status: number;
  message: RegExp;
};

const CASES: TCase[] = [
  {
    what: "a .docx holding 3 million empty paragraphs",
    name: "paragraphs.docx",
    make: () => repeatingDocx("<w:p/>", 3_000_000),
    status: 413,
    message: /unzips to \d+ times its size; .* at most 200 times, so it was not read/,
  },
  {
    what: "a .docx that inflates to 200 MB of XML",
    name: "inflate-200mb.docx",
    make: () => repeatingDocx(SQUEEZABLE, 200_000),
    status: 413,
    message: /unzips to more than 50\.0 MB, the most a Word document may hold/,
  },
  {
    what: "a .docx that inflates to 200 MB while its headers claim 1 MB",
    name: "inflate-lying.docx",
    make: () => repeatingDocx(SQUEEZABLE, 200_000, 1_000_000),
    status: 422,
    message: /could not be read as a Word document/,
  },
  {
    what: "a .docx that inflates to 1 GB",
    name: "inflate-1gb.docx",
    make: () => repeatingDocx(SQUEEZABLE, 1_000_000),
    status: 413,
    message: /unzips to more than 50\.0 MB/,
  },
  {
    what: "a 10,000-page PDF",
    name: "pages.pdf",
    make: () => makePdf(Array.from({ length: 10_000 }, (_, i) => [`Page ${i + 1}`])),
    status: 413,
    message: /has 10,000 pages; files can have at most 500/,
  },
  {
    what: "a malformed PDF",
    name: "broken.pdf",
    make: async () =>
      new TextEncoder().encode(`%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 9 0 R >>\n${"x".repeat(5000)}`),
    status: 422,
    message: /could not be read as a PDF/,
  },
  {
    what: "a file over the size limit",
    name: "huge.txt",
    make: async () => new Uint8Array(randomBytes(6_000_000)),
    status: 413,
    message: /at most 5\.0 MB/,
  },
  {
    what: "a real 200-paragraph Word document",
    name: "notes.docx",
    make: () => makeDocx(Array.from({ length: 200 }, (_, i) => `Paragraph ${i + 1}: our price is 10.00`)),
    status: 201,
    message: /^$/,
  },
];

describe("hostile context files cannot take the server down", () => {
  it.each(CASES)(
    "$what: answered $status, health answers throughout, memory returns",
    async (c) => {
      const bytes = await c.make();
      const { result, polls, slowestMs } = await withHealthPolls(() => upload(c.name, bytes));
      expect(result.status, JSON.stringify(result.body)).toBe(c.status);
      expect(result.body.error?.message ?? "").toMatch(c.message);
      expect(polls).toBeGreaterThan(0);
      expect(slowestMs, `the slowest of ${polls} health polls`).toBeLessThan(1_000);
      expect(app.proc.exitCode).toBeNull();
      const after = await settledRssMb();
      expect(after - baselineMb, `resident MB: ${baselineMb} before, ${after} after`).toBeLessThan(150);
    },
    120_000,
  );

  it("kept nothing of the refused files", async () => {
    const res = await fetch(
      `${app.url}/api/trpc/contextFile.list?input=${encodeURIComponent(JSON.stringify({ json: { trackerId } }))}`,
      {
        headers: { cookie },
      },
    );
    const files = ((await res.json()) as { result: { data: { json: { files: { name: string }[] } } } }).result.data.json
      .files;
    expect(files.map((f) => f.name).sort()).toEqual(["notes.docx", "warm.docx", "warm.pdf"]);
  });
});
